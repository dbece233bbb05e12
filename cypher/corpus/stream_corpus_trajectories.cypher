// One row per corpus trajectory with its length and facets: execution pattern, sector, task type, file formats.
// $statuses: list<string> of trajectory statuses forming the corpus, or null for every trajectory
MATCH (t:Trajectory)
WHERE $statuses IS NULL OR t.status IN $statuses
WITH t, COLLECT {
  MATCH (t)-[:ATTEMPTS]->(:TaskSpec)-[:REVISED_FROM*0..]->(:TaskSpec)-[:COMPILED_FROM]->(w:Workspace)
  RETURN DISTINCT w
} AS workspaces
RETURN t.trajectory_id AS trajectory_id, t.status AS status, t.steps AS steps, t.tokens AS tokens,
       COLLECT {
         UNWIND workspaces AS w
         MATCH (w)-[:FOR_SEED]->(:Seed)-[:USES_PATTERN]->(p:ExecutionPattern)
         RETURN DISTINCT p.name
       } AS patterns,
       COLLECT {
         UNWIND workspaces AS w
         MATCH (w)-[:FOR_SEED]->(:Seed)-[:FOR_OCCUPATION]->(:Occupation)-[:IN_SECTOR]->(x:Sector)
         RETURN DISTINCT {code: x.code, title: coalesce(x.name, x.code)}
       } AS sectors,
       COLLECT {
         UNWIND workspaces AS w
         MATCH (w)-[:FOR_SEED]->(:Seed)-[:OF_TYPE]->(d:DWA)
         RETURN DISTINCT d.dwa_id
       } AS task_types,
       COLLECT {
         UNWIND workspaces AS w
         MATCH (w)-[:FOR_SEED]->(:Seed)-[:FOR_OCCUPATION]->(o:Occupation)
         RETURN DISTINCT o.soc_code
       } AS occupations,
       COLLECT {
         UNWIND workspaces AS w
         MATCH (w)-[:CONTAINS]->(f:File)
         WHERE f.format IS NOT NULL
         RETURN DISTINCT toLower(f.format)
       } AS formats
ORDER BY trajectory_id
