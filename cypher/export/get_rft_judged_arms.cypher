// Distinct judge arms that scored any trajectory in the RFT candidate pool (optionally one rollout model).
// $rollout_model: string or null (null: every model)
MATCH (j:Judgment)-[:SCORES]->(t:Trajectory)
WHERE t.spec_id IS NOT NULL AND ($rollout_model IS NULL OR t.model = $rollout_model)
RETURN DISTINCT j.arm AS arm
ORDER BY arm
