// Upsert pairwise judgments: both orderings' verdicts, reasons and prompt hashes, and the combined winner.
// $rows: list<PairJudgmentRow>
UNWIND $rows AS row
MATCH (a:Attempt {attempt_id: row.attempt_a})
MATCH (b:Attempt {attempt_id: row.attempt_b})
MATCH (t:BenchmarkTask {task_key: row.task_key})
MERGE (j:PairJudgment {judgment_id: row.judgment_id})
  ON CREATE SET j.created_at = datetime()
SET j.task_key = row.task_key, j.judge = row.judge, j.judge_model = row.judge_model,
    j.player_a = row.player_a, j.player_b = row.player_b, j.attempt_a = row.attempt_a,
    j.attempt_b = row.attempt_b, j.winner = row.winner, j.consistent = row.consistent, j.rule = row.rule,
    j.verdict_ab = row.verdict_ab, j.verdict_ba = row.verdict_ba, j.reasons_ab = row.reasons_ab,
    j.reasons_ba = row.reasons_ba, j.prompt_hash_ab = row.prompt_hash_ab, j.prompt_hash_ba = row.prompt_hash_ba,
    j.prompt_version = row.prompt_version, j.llm_calls = row.llm_calls, j.prompt_tokens = row.prompt_tokens,
    j.completion_tokens = row.completion_tokens
MERGE (j)-[:JUDGES {side: 'a'}]->(a)
MERGE (j)-[:JUDGES {side: 'b'}]->(b)
MERGE (j)-[:ON_TASK]->(t)
RETURN count(*) AS written
