// Upsert trajectories keyed by trajectory_id and link each to the spec it attempts (when loaded).
// $rows: list<TrajectoryRow>
UNWIND $rows AS row
MERGE (t:Trajectory {trajectory_id: row.trajectory_id})
  ON CREATE SET t.created_at = datetime()
SET t.spec_id = row.spec_id, t.scaffold = row.scaffold, t.model = row.model, t.steps = row.steps,
    t.prompt_tokens = row.prompt_tokens, t.completion_tokens = row.completion_tokens,
    t.tokens = row.tokens, t.cost_usd = row.cost_usd, t.status = row.status, t.source = row.source,
    t.messages_json = row.messages_json, t.tools_json = row.tools_json,
    t.deliverables_json = row.deliverables_json, t.final_message = row.final_message
WITH t, row
OPTIONAL MATCH (s:TaskSpec {spec_id: row.spec_id})
FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | MERGE (t)-[:ATTEMPTS]->(s))
RETURN count(*) AS written
