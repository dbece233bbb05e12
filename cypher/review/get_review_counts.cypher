// Current specs by human-review verdict (accepted, rejected, unreviewed), and the criteria verdicts on them.
// no parameters
MATCH (s:TaskSpec)
WHERE NOT EXISTS { (:TaskSpec)-[:REVISED_FROM]->(s) }
  AND NOT EXISTS { MATCH (n:TaskSpec {base_id: s.base_id}) WHERE n.version > s.version }
  AND s.retired_at IS NULL  // retired: a compile of every family no longer produced it
OPTIONAL MATCH (s)-[:HAS_CRITERION]->(c:Criterion)
WITH s, count(c) AS criteria, count(c.review_verdict) AS reviewed,
     sum(CASE c.review_verdict WHEN 'rejected' THEN 1 ELSE 0 END) AS rejected,
     sum(CASE c.review_verdict WHEN 'edited' THEN 1 ELSE 0 END) AS edited
RETURN coalesce(s.review_verdict, 'unreviewed') AS verdict, count(s) AS specs, sum(criteria) AS criteria,
       sum(reviewed) AS criteria_reviewed, sum(rejected) AS criteria_rejected, sum(edited) AS criteria_edited
ORDER BY verdict
