// One occupation's tasks -> DWAs (task types) -> seeds, with DIGITAL flags and selection ranks.
// :param soc_code => '13-2011.00'   (the sample's Accountants and Auditors)
MATCH (o:Occupation {soc_code: $soc_code})-[:PERFORMS]->(t:Task)
OPTIONAL MATCH (t)-[:HAS_TYPE]->(d:DWA)
OPTIONAL MATCH (s:Seed)-[:FROM_TASK]->(t) WHERE EXISTS { (s)-[:OF_TYPE]->(d) }
RETURN o.title AS occupation, t.task_id AS task_id, t.statement AS task, t.digital AS digital,
       d.dwa_id AS dwa_id, d.title AS task_type, s.seed_id AS seed_id, s.pattern AS pattern,
       s.input_family AS input_family, s.selection_rank AS rank
ORDER BY task_id, dwa_id, rank
