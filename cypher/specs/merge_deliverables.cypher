// Upsert a spec's deliverables keyed by deliverable_id and link them (:TaskSpec)-[:REQUIRES]->(:Deliverable).
// $rows: list<DeliverableRow>
UNWIND $rows AS row
MATCH (s:TaskSpec {spec_id: row.spec_id})
MERGE (d:Deliverable {deliverable_id: row.deliverable_id})
SET d.spec_id = row.spec_id, d.ordinal = row.ordinal, d.name = row.name, d.format = row.format,
    d.description = row.description, d.required_sheets = row.required_sheets,
    d.required_formulas = row.required_formulas, d.required_sections = row.required_sections,
    d.required_columns = row.required_columns, d.required_keys = row.required_keys
MERGE (s)-[:REQUIRES]->(d)
RETURN count(*) AS written
