// Trajectories by id: spec, deliverables, final message (what judging reads; the transcript only when no final message was stored).
// $trajectory_ids: list<string>
UNWIND $trajectory_ids AS id
MATCH (t:Trajectory {trajectory_id: id})
RETURN t.trajectory_id AS trajectory_id, t.spec_id AS spec_id, t.deliverables_json AS deliverables_json,
       t.final_message AS final_message,
       CASE WHEN t.final_message IS NULL THEN t.messages_json END AS messages_json
