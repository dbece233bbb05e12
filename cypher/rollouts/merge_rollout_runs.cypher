// Record how a built-in-loop rollout ran on its Trajectory: stop reason, tool use, LLM calls, run folder.
// $rows: list<RolloutRunRow>
UNWIND $rows AS row
MATCH (t:Trajectory {trajectory_id: row.trajectory_id})
SET t.stop_reason = row.stop_reason, t.tool_calls = row.tool_calls, t.tool_failures = row.tool_failures,
    t.llm_calls = row.llm_calls, t.llm_cached_calls = row.llm_cached_calls,
    t.llm_prompt_hashes = row.llm_prompt_hashes, t.run_dir = row.run_dir
RETURN count(*) AS written
