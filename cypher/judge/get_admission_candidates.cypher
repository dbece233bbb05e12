// Every trajectory in scope with its judgment of one arm (null when not judged yet) and the number of files its
// spec's workspace holds (a task over files is not done without a tool call), for admission; the judgment's
// per-criterion ratings let admission leave out criteria a reviewer rejected.
// $arm: judge arm; $spec_ids: list<string> or null (all); $statuses: list<string> statuses to (re)decide.
MATCH (t:Trajectory)
WHERE t.spec_id IS NOT NULL AND ($spec_ids IS NULL OR t.spec_id IN $spec_ids)
  AND coalesce(t.status, 'materialised') IN $statuses
OPTIONAL MATCH (j:Judgment {arm: $arm, spec_id: t.spec_id})-[:SCORES]->(t)
WITH t, j ORDER BY j.created_at DESC
WITH t, collect(j)[0] AS j
OPTIONAL MATCH (:TaskSpec {spec_id: t.spec_id})-[:COMPILED_FROM]->(:Workspace)-[c:CONTAINS]->(:File)
WITH t, j, count(c) AS workspace_files
RETURN t.trajectory_id AS trajectory_id, t.spec_id AS spec_id, coalesce(t.status, 'materialised') AS status,
       j.judgment_id AS judgment_id, j.q AS q, j.deliverables_ok AS deliverables_ok, j.reason AS judgment_reason,
       j.ratings_json AS ratings_json,
       workspace_files
ORDER BY t.trajectory_id
