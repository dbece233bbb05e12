// What a seed says about the work a spec should ask for: occupation, task, pattern, input family, demand.
// $seed_id: the seed.
MATCH (s:Seed {seed_id: $seed_id})
OPTIONAL MATCH (s)-[:FOR_OCCUPATION]->(o:Occupation)
OPTIONAL MATCH (s)-[:USES_PATTERN]->(p:ExecutionPattern)
OPTIONAL MATCH (s)-[:EXPECTS_INPUT]->(i:InputFamily)
OPTIONAL MATCH (s)-[:FROM_TASK]->(t:Task)
RETURN s.seed_id AS seed_id, o.title AS occupation, t.statement AS task, p.name AS pattern,
       i.name AS input_family, [d IN [s.demand] WHERE d IS NOT NULL] AS demands
ORDER BY occupation, task, pattern, input_family
LIMIT 1
