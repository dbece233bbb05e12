// Trajectories with their spec, status, reason and the anchored judge's Q; filters optional (null: any).
// $ids: list<string>|null; $spec_id: string|null; $status: string|null; $model: string|null
MATCH (t:Trajectory)
WHERE ($ids IS NULL OR t.trajectory_id IN $ids)
  AND ($spec_id IS NULL OR t.spec_id = $spec_id)
  AND ($status IS NULL OR t.status = $status)
  AND ($model IS NULL OR t.model = $model)
OPTIONAL MATCH (j:Judgment)-[:SCORES]->(t)
WITH t, max(CASE WHEN j.arm = 'anchored' THEN j.q END) AS q_anchored, count(j) AS judgments
RETURN t.trajectory_id AS trajectory_id, t.spec_id AS spec_id, t.scaffold AS scaffold, t.model AS model,
       t.status AS status, t.status_reason AS status_reason, t.steps AS steps, t.tokens AS tokens,
       judgments, q_anchored
ORDER BY trajectory_id
