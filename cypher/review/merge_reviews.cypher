// Upsert reviewers' verdicts keyed by review_id and link each to the spec or criterion it judges; verdicts on
// a spec or criterion the graph does not hold are not written (the import lists them).
// $rows: list<ReviewRow>
UNWIND $rows AS row
OPTIONAL MATCH (s:TaskSpec {spec_id: row.target_id}) WHERE row.target_kind = 'spec'
OPTIONAL MATCH (c:Criterion {criterion_id: row.target_id}) WHERE row.target_kind = 'criterion'
WITH row, coalesce(s, c) AS target
WHERE target IS NOT NULL
MERGE (r:Review {review_id: row.review_id})
  ON CREATE SET r.imported_at = datetime()
SET r.target_kind = row.target_kind, r.target_id = row.target_id, r.spec_id = row.spec_id,
    r.verdict = row.verdict, r.text = row.text, r.seen_text = row.seen_text, r.reviewer = row.reviewer,
    r.reviewed_at = datetime(row.reviewed_at), r.tool = row.tool, r.source = row.source,
    r.annotation = row.annotation, r.ls_task = row.ls_task, r.ls_project = row.ls_project
MERGE (r)-[:REVIEWS]->(target)
RETURN count(*) AS written
