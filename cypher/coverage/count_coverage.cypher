// Distinct occupations, sectors, sub-sectors, task types, patterns, input families and sector x pattern cells.
// $selected_only: boolean (true: selected seeds only; false: the whole candidate pool)
MATCH (s:Seed) WHERE NOT $selected_only OR s.selection_rank IS NOT NULL
MATCH (s)-[:FOR_OCCUPATION]->(o:Occupation)
MATCH (s)-[:OF_TYPE]->(d:DWA)
MATCH (s)-[:USES_PATTERN]->(p:ExecutionPattern)
MATCH (s)-[:EXPECTS_INPUT]->(f:InputFamily)
OPTIONAL MATCH (o)-[:IN_SECTOR]->(sec:Sector)
OPTIONAL MATCH (o)-[:IN_SUB_SECTOR]->(sub:Sector)
RETURN count(DISTINCT s) AS seeds, count(DISTINCT o) AS occupations, count(DISTINCT sec) AS sectors,
       count(DISTINCT sub) AS sub_sectors, count(DISTINCT d) AS task_types, count(DISTINCT p) AS patterns,
       count(DISTINCT f) AS input_families,
       count(DISTINCT CASE WHEN sec IS NULL THEN null ELSE sec.code + '|' + p.name END) AS cells
