// The current human-review state of specs: each spec's verdict and its criteria that carry one.
// $spec_ids: list<string> or null (every spec)
MATCH (s:TaskSpec)
WHERE $spec_ids IS NULL OR s.spec_id IN $spec_ids
OPTIONAL MATCH (s)-[:HAS_CRITERION]->(c:Criterion)
WHERE c.review_verdict IS NOT NULL
WITH s, collect(c {.criterion_id, verdict: c.review_verdict, text: c.review_text, reviewer: c.reviewed_by})
        AS criteria
RETURN s.spec_id AS spec_id, s.review_verdict AS verdict, s.reviewed_by AS reviewer,
       toString(s.reviewed_at) AS reviewed_at, criteria
ORDER BY spec_id
