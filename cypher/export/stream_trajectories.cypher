// Chosen trajectories by id, in a stable order, with their messages and tools.
// $trajectory_ids: list<string>
MATCH (t:Trajectory)
WHERE t.trajectory_id IN $trajectory_ids
RETURN t.trajectory_id AS trajectory_id, t.spec_id AS spec_id, t.messages_json AS messages_json,
       t.tools_json AS tools_json
ORDER BY t.trajectory_id
