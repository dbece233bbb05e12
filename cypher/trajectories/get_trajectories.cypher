// Trajectories by id, with everything needed to rebuild the Trajectory model.
// $trajectory_ids: list<string>
UNWIND $trajectory_ids AS id
MATCH (t:Trajectory {trajectory_id: id})
RETURN t.trajectory_id AS trajectory_id, t.spec_id AS spec_id, t.scaffold AS scaffold, t.model AS model,
       t.steps AS steps, t.prompt_tokens AS prompt_tokens, t.completion_tokens AS completion_tokens,
       t.tokens AS tokens, t.cost_usd AS cost_usd, t.status AS status, t.source AS source,
       t.messages_json AS messages_json, t.tools_json AS tools_json, t.deliverables_json AS deliverables_json
