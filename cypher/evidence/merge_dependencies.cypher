// Upsert (:Fact)-[:DEPENDS_ON {kind}]->(:Fact) edges; one edge per (src, dst, kind).
// $rows: list<DependsOnRow>
UNWIND $rows AS row
MATCH (a:Fact {fact_id: row.src_fact_id})
MATCH (b:Fact {fact_id: row.dst_fact_id})
MERGE (a)-[d:DEPENDS_ON {kind: row.kind}]->(b)
SET d.note = row.note
RETURN count(*) AS written
