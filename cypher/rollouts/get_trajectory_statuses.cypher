// Status of the trajectories that already exist among the given ids (resuming skips finished ones).
// $trajectory_ids: list<string>
UNWIND $trajectory_ids AS id
MATCH (t:Trajectory {trajectory_id: id})
RETURN t.trajectory_id AS trajectory_id, t.status AS status
