// The admission funnel: trajectories by status, with how many were judged and how many passed Q.
// Run as is (no parameters). Admission needs Q > 0.90 (GRAPHFORGE_ADMIT_Q_THRESHOLD) and clean tool use.
MATCH (t:Trajectory)
OPTIONAL MATCH (j:Judgment)-[:SCORES]->(t)
WITH t, max(j.q) AS best_q
RETURN coalesce(t.status, 'none') AS status, count(t) AS trajectories,
       count(best_q) AS judged, count(CASE WHEN best_q > 0.90 THEN 1 END) AS q_above_0_90,
       collect(t.status_reason)[0..3] AS example_reasons
ORDER BY trajectories DESC
