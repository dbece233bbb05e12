// Stored pair judgments by id (a resumed or repeated comparison reuses them instead of asking again).
// $judgment_ids: list<string>
UNWIND $judgment_ids AS id
MATCH (j:PairJudgment {judgment_id: id})
RETURN j.judgment_id AS judgment_id, j.winner AS winner, j.verdict_ab AS verdict_ab,
       j.verdict_ba AS verdict_ba, j.consistent AS consistent, j.rule AS rule
