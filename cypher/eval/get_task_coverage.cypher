// Whether each benchmark task is covered by the training data, at three levels: its occupation, its
// sector, or one of its occupation's task types (DWA) has a selected seed with an admitted trajectory.
// A revised spec has no COMPILED_FROM of its own: the trajectory reaches the workspace via REVISED_FROM.
// $task_keys: list<string>
UNWIND $task_keys AS key
MATCH (t:BenchmarkTask {task_key: key})
OPTIONAL MATCH (t)-[:FOR_OCCUPATION]->(o:Occupation)
WITH t, collect(DISTINCT o) AS occupations
OPTIONAL MATCH (sec:Sector)
WHERE EXISTS { (t)-[:FOR_OCCUPATION]->(:Occupation)-[:IN_SECTOR]->(sec) }
   OR (t.sector IS NOT NULL AND toLower(trim(sec.name)) = toLower(trim(t.sector)))
WITH t, occupations, collect(DISTINCT sec) AS sectors
RETURN t.task_key AS task_key, t.task_id AS task_id, size(occupations) > 0 AS linked,
  EXISTS {
    MATCH (t)-[:FOR_OCCUPATION]->(:Occupation)<-[:FOR_OCCUPATION]-(s:Seed)
          <-[:FOR_SEED]-(:Workspace)<-[:COMPILED_FROM]-(:TaskSpec)<-[:REVISED_FROM*0..]-(:TaskSpec)
          <-[:ATTEMPTS]-(r:Trajectory)
    WHERE s.selection_rank IS NOT NULL AND r.status = 'admitted'
  } AS occupation,
  EXISTS {
    MATCH (sec:Sector)<-[:IN_SECTOR]-(:Occupation)<-[:FOR_OCCUPATION]-(s:Seed)
          <-[:FOR_SEED]-(:Workspace)<-[:COMPILED_FROM]-(:TaskSpec)<-[:REVISED_FROM*0..]-(:TaskSpec)
          <-[:ATTEMPTS]-(r:Trajectory)
    WHERE sec IN sectors AND s.selection_rank IS NOT NULL AND r.status = 'admitted'
  } AS sector,
  EXISTS {
    MATCH (t)-[:FOR_OCCUPATION]->(:Occupation)-[:PERFORMS]->(:Task)-[:HAS_TYPE]->(:DWA)<-[:OF_TYPE]-(s:Seed)
          <-[:FOR_SEED]-(:Workspace)<-[:COMPILED_FROM]-(:TaskSpec)<-[:REVISED_FROM*0..]-(:TaskSpec)
          <-[:ATTEMPTS]-(r:Trajectory)
    WHERE s.selection_rank IS NOT NULL AND r.status = 'admitted'
  } AS dwa
