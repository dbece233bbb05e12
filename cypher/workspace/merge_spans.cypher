// Upsert spans under their (existing) file; the row-at-a-time baseline the ingest benchmark measures.
// $rows: list<SpanRow>
UNWIND $rows AS s
MATCH (f:File {sha256: s.file_sha256})
MERGE (sp:Span {span_id: s.span_id})
SET sp.file_sha256 = s.file_sha256, sp.locator = s.locator, sp.kind = s.kind, sp.ordinal = s.ordinal,
    sp.text = s.text, sp.formulas_json = s.formulas_json
MERGE (f)-[:HAS_SPAN]->(sp)
RETURN count(*) AS written
