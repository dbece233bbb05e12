// Every trajectory in scope with its judgment of one arm (null when not judged yet), for admission.
// $arm: judge arm; $spec_ids: list<string> or null (all); $statuses: list<string> statuses to (re)decide.
MATCH (t:Trajectory)
WHERE t.spec_id IS NOT NULL AND ($spec_ids IS NULL OR t.spec_id IN $spec_ids)
  AND coalesce(t.status, 'materialised') IN $statuses
OPTIONAL MATCH (j:Judgment {arm: $arm, spec_id: t.spec_id})-[:SCORES]->(t)
WITH t, j ORDER BY j.created_at DESC
WITH t, collect(j)[0] AS j
RETURN t.trajectory_id AS trajectory_id, t.spec_id AS spec_id, coalesce(t.status, 'materialised') AS status,
       j.judgment_id AS judgment_id, j.q AS q, j.deliverables_ok AS deliverables_ok, j.reason AS judgment_reason
ORDER BY t.trajectory_id
