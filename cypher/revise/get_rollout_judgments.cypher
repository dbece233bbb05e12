// The newest anchored judgment of each given rollout: Q, reason and the per-criterion ratings (JSON).
// $trajectory_ids: list<string>.
MATCH (j:Judgment {arm: 'anchored'})-[:SCORES]->(t:Trajectory)
WHERE t.trajectory_id IN $trajectory_ids AND j.spec_id = t.spec_id
WITH t, j ORDER BY j.created_at DESC
WITH t, collect(j)[0] AS j
RETURN t.trajectory_id AS trajectory_id, j.q AS q, j.reason AS reason, j.ratings_json AS ratings_json
ORDER BY trajectory_id
