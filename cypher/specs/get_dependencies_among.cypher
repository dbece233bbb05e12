// DEPENDS_ON edges between the given facts.
// $fact_ids: the facts.
MATCH (a:Fact)-[d:DEPENDS_ON]->(b:Fact)
WHERE a.fact_id IN $fact_ids AND b.fact_id IN $fact_ids
RETURN a.fact_id AS src_fact_id, b.fact_id AS dst_fact_id, d.kind AS kind, coalesce(d.note, '') AS note
ORDER BY kind, src_fact_id, dst_fact_id
