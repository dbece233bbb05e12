// Remove a spec's deliverables and criteria that a re-save no longer lists (keeps saved specs exact).
// $spec_id: the spec; $keep_ids: the deliverable_id and criterion_id values to keep.
MATCH (s:TaskSpec {spec_id: $spec_id})-[:REQUIRES|HAS_CRITERION]->(n)
WHERE NOT coalesce(n.deliverable_id, n.criterion_id) IN $keep_ids
DETACH DELETE n
RETURN count(*) AS deleted
