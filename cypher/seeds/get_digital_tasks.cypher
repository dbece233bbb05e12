// DIGITAL tasks with their occupation, sector and task types (DWA with IWA title), for seed building.
// No parameters.
MATCH (o:Occupation)-[:PERFORMS]->(t:Task {digital: true})
OPTIONAL MATCH (o)-[:IN_SECTOR]->(s:Sector)
OPTIONAL MATCH (t)-[:HAS_TYPE]->(d:DWA)
OPTIONAL MATCH (d)-[:PART_OF]->(i:IWA)
WITH o, t, s, d, i ORDER BY d.dwa_id
WITH o, t, s, collect(CASE WHEN d IS NULL THEN null
                           ELSE {dwa_id: d.dwa_id, title: d.title, iwa_title: coalesce(i.title, '')} END) AS dwas
RETURN t.task_id AS task_id, t.statement AS statement, o.soc_code AS soc_code, o.title AS occupation_title,
       s.code AS sector_code, dwas
ORDER BY task_id
