// What stage 5 left: task specs, the current ones (no revision or newer version supersedes them), their
// criteria, and current specs no trajectory attempts yet.
// (no parameters)
MATCH (s:TaskSpec)
WITH s, NOT EXISTS { (:TaskSpec)-[:REVISED_FROM]->(s) }
        AND NOT EXISTS { MATCH (n:TaskSpec {base_id: s.base_id}) WHERE n.version > s.version } AS current
RETURN count(s) AS specs, count(CASE WHEN current THEN 1 END) AS current_specs,
       sum(CASE WHEN current THEN COUNT { (s)-[:HAS_CRITERION]->(:Criterion) } ELSE 0 END) AS current_criteria,
       count(CASE WHEN current AND NOT EXISTS { (:Trajectory)-[:ATTEMPTS]->(s) } THEN 1 END)
         AS current_specs_without_trajectories
