// The given specs as the graph holds them now, with each criterion's id and requirement, so an import can
// tell a verdict on a spec or criterion that is gone, or whose requirement changed since the export.
// $spec_ids: list<string>
UNWIND $spec_ids AS spec_id
MATCH (s:TaskSpec {spec_id: spec_id})
OPTIONAL MATCH (s)-[:HAS_CRITERION]->(c:Criterion)
RETURN s.spec_id AS spec_id, collect(c {.criterion_id, .requirement}) AS criteria
