// Put the latest verdict (by review time) on each given spec and on each of its criteria: review_verdict
// ('accepted' | 'rejected' | 'edited'), review_text (the edited requirement), reviewed_by, reviewed_at.
// $spec_ids: list<string>
UNWIND $spec_ids AS spec_id
MATCH (s:TaskSpec {spec_id: spec_id})
CALL (s) {
  OPTIONAL MATCH (r:Review)-[:REVIEWS]->(s)
  WITH r ORDER BY r.reviewed_at DESC, r.review_id DESC LIMIT 1
  SET s.review_verdict = CASE r.verdict WHEN 'accept' THEN 'accepted' WHEN 'reject' THEN 'rejected' END,
      s.review_note = r.text, s.reviewed_by = r.reviewer, s.reviewed_at = r.reviewed_at
}
CALL (s) {
  MATCH (s)-[:HAS_CRITERION]->(c:Criterion)
  CALL (c) {
    OPTIONAL MATCH (r:Review)-[:REVIEWS]->(c)
    WITH r ORDER BY r.reviewed_at DESC, r.review_id DESC LIMIT 1
    SET c.review_verdict = CASE r.verdict WHEN 'accept' THEN 'accepted' WHEN 'reject' THEN 'rejected'
                                          WHEN 'edit' THEN 'edited' END,
        c.review_text = CASE WHEN r.verdict = 'edit' THEN r.text END,
        c.reviewed_by = r.reviewer, c.reviewed_at = r.reviewed_at
  }
}
RETURN count(s) AS specs
