// Read one task spec with its deliverables and criteria in their saved order.
// $spec_id: the spec to read.
MATCH (s:TaskSpec {spec_id: $spec_id})
CALL (s) {
  OPTIONAL MATCH (s)-[:REQUIRES]->(d:Deliverable)
  WITH d ORDER BY d.ordinal
  RETURN collect(d {.*}) AS deliverables
}
CALL (s) {
  OPTIONAL MATCH (s)-[:HAS_CRITERION]->(c:Criterion)
  WITH c ORDER BY c.ordinal
  RETURN collect(c {.*}) AS criteria
}
RETURN s {.*} AS spec, deliverables, criteria
