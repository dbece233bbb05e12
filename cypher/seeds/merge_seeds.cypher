// Upsert candidate seeds keyed by content hash and link them to their tuple values and evidence.
// $rows: list<SeedRow>
UNWIND $rows AS row
MATCH (o:Occupation {soc_code: row.soc_code})
MATCH (d:DWA {dwa_id: row.dwa_id})
MATCH (p:ExecutionPattern {name: row.pattern})
MATCH (f:InputFamily {name: row.input_family})
MATCH (e:Evidence {evidence_id: row.evidence_id})
MATCH (t:Task {task_id: row.task_id})
MERGE (s:Seed {seed_id: row.seed_id})
SET s.demand = row.demand, s.demand_normalized = row.demand_normalized, s.demand_source = row.demand_source,
    s.demand_model = row.demand_model, s.task_id = row.task_id, s.soc_code = row.soc_code,
    s.dwa_id = row.dwa_id, s.pattern = row.pattern, s.input_family = row.input_family
MERGE (s)-[:FOR_OCCUPATION]->(o)
MERGE (s)-[:OF_TYPE]->(d)
MERGE (s)-[:USES_PATTERN]->(p)
MERGE (s)-[:EXPECTS_INPUT]->(f)
MERGE (s)-[:FROM_TASK]->(t)
MERGE (s)-[sup:SUPPORTED_BY]->(e)
SET sup.quote = row.evidence_quote
RETURN count(*) AS written
