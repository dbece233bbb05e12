// Every seed with the words its fit to a folder is measured on: occupation title and description, task, DWA.
// (no parameters)
MATCH (s:Seed)
OPTIONAL MATCH (s)-[:FOR_OCCUPATION]->(o:Occupation)
OPTIONAL MATCH (s)-[:FROM_TASK]->(t:Task)
OPTIONAL MATCH (s)-[:OF_TYPE]->(d:DWA)
WITH s, head(collect(o)) AS o, head(collect(t)) AS t, head(collect(d)) AS d
RETURN s.seed_id AS seed_id, s.selection_rank AS selection_rank, s.soc_code AS soc_code,
       coalesce(o.title, '') AS occupation, coalesce(o.description, '') AS description,
       coalesce(t.statement, '') AS task, coalesce(d.title, '') AS dwa
ORDER BY coalesce(s.selection_rank, 2147483647), seed_id
