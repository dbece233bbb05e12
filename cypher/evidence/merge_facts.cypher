// Upsert facts keyed by fact_id and link each (:Fact)-[:FROM_SPAN]->(:Span) it was read from.
// $rows: list<FactRow>
UNWIND $rows AS row
MATCH (s:Span {span_id: row.span_id})
MERGE (f:Fact {fact_id: row.fact_id})
  ON CREATE SET f.created_at = datetime()
SET f.span_id = row.span_id, f.statement = row.statement, f.value = row.value, f.value_num = row.value_num,
    f.unit = row.unit, f.scale = row.scale, f.entity = row.entity, f.metric = row.metric,
    f.period = row.period, f.extractor = row.extractor, f.kind = row.kind,
    f.normalized = row.normalized, f.section = row.section
MERGE (f)-[:FROM_SPAN]->(s)
RETURN count(*) AS written
