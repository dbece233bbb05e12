// Initial and revised task specs, and how many revisions reused the earlier rollout (reused_rollout).
// no parameters
MATCH (s:TaskSpec)
WITH s, EXISTS { (s)-[:REVISED_FROM]->(:TaskSpec) } AS revised
RETURN count(CASE WHEN NOT revised THEN 1 END) AS initial_specs,
       count(CASE WHEN revised THEN 1 END) AS revised_specs,
       count(CASE WHEN revised AND s.reused_rollout = true THEN 1 END) AS reused,
       count(CASE WHEN revised AND s.reused_rollout = false THEN 1 END) AS rerun
