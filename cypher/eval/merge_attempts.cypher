// Upsert attempts keyed by "<task_key>|<player>", linked to their benchmark task and their player.
// $rows: list<AttemptRow>
UNWIND $rows AS row
MATCH (t:BenchmarkTask {task_key: row.task_key})
MATCH (p:Player {name: row.player})
MERGE (a:Attempt {attempt_id: row.attempt_id})
  ON CREATE SET a.created_at = datetime()
SET a.task_key = row.task_key, a.benchmark = row.benchmark, a.task_id = row.task_id, a.player = row.player,
    a.scaffold = row.scaffold, a.model = row.model, a.status = row.status, a.stop_reason = row.stop_reason,
    a.steps = row.steps, a.prompt_tokens = row.prompt_tokens, a.completion_tokens = row.completion_tokens,
    a.cost_usd = row.cost_usd, a.llm_calls = row.llm_calls, a.cached_calls = row.cached_calls,
    a.prompt_hashes = row.prompt_hashes, a.final_text = row.final_text,
    a.deliverables_json = row.deliverables_json, a.messages_json = row.messages_json, a.rendered = row.rendered,
    a.has_output = row.has_output, a.content_hash = row.content_hash, a.run_dir = row.run_dir,
    a.source = row.source, a.told_to_write = row.told_to_write,
    a.agent_json = row.agent_json, a.updated_at = datetime()
MERGE (a)-[:ON_TASK]->(t)
MERGE (a)-[:BY]->(p)
RETURN count(*) AS written
