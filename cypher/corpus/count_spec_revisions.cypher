// Initial and revised task specs, and how many revisions reused the earlier rollout instead of re-running it.
// no parameters; reuse is s.reused_rollout when set, else a rollout on s copied (REUSED_FROM), else a fresh one
MATCH (s:TaskSpec)
WITH s, EXISTS { (s)-[:REVISED_FROM]->(:TaskSpec) } AS revised,
     COUNT { (t:Trajectory)-[:ATTEMPTS]->(s) WHERE EXISTS { (t)-[:REUSED_FROM]->(:Trajectory) } } AS copied,
     COUNT { (:Trajectory)-[:ATTEMPTS]->(s) } AS attempts
WITH revised, coalesce(s.reused_rollout,
                       CASE WHEN copied > 0 THEN true WHEN attempts > 0 THEN false END) AS reused
RETURN count(CASE WHEN NOT revised THEN 1 END) AS initial_specs,
       count(CASE WHEN revised THEN 1 END) AS revised_specs,
       count(CASE WHEN revised AND reused = true THEN 1 END) AS reused,
       count(CASE WHEN revised AND reused = false THEN 1 END) AS rerun
