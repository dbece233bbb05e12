// Trajectories with a spec, filtered by status and (optionally) by spec and trajectory ids.
// $statuses: list<string>; $spec_ids: list<string> or null (all); $trajectory_ids: list<string> or null (all).
MATCH (t:Trajectory)
WHERE t.spec_id IS NOT NULL AND coalesce(t.status, 'materialised') IN $statuses
  AND ($spec_ids IS NULL OR t.spec_id IN $spec_ids)
  AND ($trajectory_ids IS NULL OR t.trajectory_id IN $trajectory_ids)
RETURN t.trajectory_id AS trajectory_id, t.spec_id AS spec_id, coalesce(t.status, 'materialised') AS status
ORDER BY t.spec_id, t.trajectory_id
