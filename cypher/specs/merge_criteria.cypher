// Upsert a spec's criteria keyed by criterion_id; link HAS_CRITERION, TARGETS its deliverable and ANCHORED_TO facts.
// $rows: list<CriterionRow>; anchors are replaced, so a re-save with fewer anchors leaves no stale edge.
UNWIND $rows AS row
MATCH (s:TaskSpec {spec_id: row.spec_id})
MERGE (c:Criterion {criterion_id: row.criterion_id})
SET c.spec_id = row.spec_id, c.ordinal = row.ordinal, c.polarity = row.polarity, c.kind = row.kind,
    c.weight = row.weight, c.requirement = row.requirement, c.target_deliverable = row.target_deliverable,
    c.target_location = row.target_location, c.expected = row.expected, c.expected_value = row.expected_value,
    c.tolerance = row.tolerance, c.computation = row.computation, c.verification = row.verification,
    c.anchors = row.anchors, c.check = row.check, c.fact_kind = row.fact_kind, c.label = row.label
MERGE (s)-[:HAS_CRITERION]->(c)
WITH c, row
CALL (c, row) {
  OPTIONAL MATCH (c)-[old:ANCHORED_TO|TARGETS]->()
  DELETE old
}
CALL (c, row) {
  MATCH (d:Deliverable {deliverable_id: row.deliverable_id})
  MERGE (c)-[:TARGETS]->(d)
}
CALL (c, row) {
  UNWIND row.anchors AS fact_id
  MATCH (f:Fact {fact_id: fact_id})
  MERGE (c)-[:ANCHORED_TO]->(f)
}
RETURN count(*) AS written
