// Every candidate seed with its value on each coverage dimension, read from its relationships.
// No parameters.
MATCH (s:Seed)-[:FOR_OCCUPATION]->(o:Occupation)
MATCH (s)-[:OF_TYPE]->(d:DWA)
MATCH (s)-[:USES_PATTERN]->(p:ExecutionPattern)
MATCH (s)-[:EXPECTS_INPUT]->(f:InputFamily)
OPTIONAL MATCH (o)-[:IN_SECTOR]->(sec:Sector)
RETURN s.seed_id AS seed_id, s.task_id AS task_id, o.soc_code AS soc_code, d.dwa_id AS dwa_id,
       p.name AS pattern, f.name AS input_family, coalesce(sec.code, '') AS sector_code,
       s.demand_normalized AS demand_normalized, s.selection_rank AS selection_rank
ORDER BY seed_id
