// Trajectories by id with their spec and deliverables only (what judging reads; no messages).
// $trajectory_ids: list<string>
UNWIND $trajectory_ids AS id
MATCH (t:Trajectory {trajectory_id: id})
RETURN t.trajectory_id AS trajectory_id, t.spec_id AS spec_id, t.deliverables_json AS deliverables_json
