// Trajectories with a given status (admitted for SFT), in a stable order, with their messages and tools.
// $status: string
MATCH (t:Trajectory {status: $status})
RETURN t.trajectory_id AS trajectory_id, t.spec_id AS spec_id, t.messages_json AS messages_json,
       t.tools_json AS tools_json
ORDER BY t.trajectory_id
