// Upsert judgments, link them to the trajectory they score and rate each criterion with evidence.
// $rows: list<JudgmentRow>
UNWIND $rows AS row
MATCH (t:Trajectory {trajectory_id: row.trajectory_id})
MERGE (j:Judgment {judgment_id: row.judgment_id})
  ON CREATE SET j.created_at = datetime()
SET j.trajectory_id = row.trajectory_id, j.spec_id = row.spec_id, j.judge = row.judge, j.arm = row.arm,
    j.q = row.q, j.deliverables_ok = row.deliverables_ok, j.reason = row.reason,
    j.ratings_json = row.ratings_json
MERGE (j)-[:SCORES]->(t)
WITH j, row
CALL (j, row) {
  UNWIND row.ratings AS rating
  MATCH (c:Criterion {criterion_id: rating.criterion_id})
  MERGE (j)-[r:RATES]->(c)
  SET r.score = rating.score, r.verifier = rating.verifier, r.evidence = rating.evidence,
      r.polarity = rating.polarity, r.weight = rating.weight
}
RETURN count(*) AS written
