// Upsert intermediate work activities and link each to its GWA.
// $rows: list<IwaRow>
UNWIND $rows AS row
MERGE (i:IWA {iwa_id: row.iwa_id})
SET i.title = row.title, i.element_id = row.element_id
WITH i, row
MATCH (g:GWA {element_id: row.element_id})
MERGE (i)-[:PART_OF]->(g)
RETURN count(*) AS written
