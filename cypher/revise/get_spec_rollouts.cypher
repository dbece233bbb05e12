// Trajectories that attempt a spec (the initial rollout a revision may reuse).
// $spec_id: the spec.
MATCH (t:Trajectory {spec_id: $spec_id})
RETURN t.trajectory_id AS trajectory_id, t.scaffold AS scaffold, coalesce(t.status, 'materialised') AS status
ORDER BY t.trajectory_id
