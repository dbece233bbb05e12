// Upsert detailed work activities (the seed "task types") and link each to its IWA.
// $rows: list<DwaRow>
UNWIND $rows AS row
MERGE (d:DWA {dwa_id: row.dwa_id})
SET d.title = row.title, d.iwa_id = row.iwa_id
WITH d, row
MATCH (i:IWA {iwa_id: row.iwa_id})
MERGE (d)-[:PART_OF]->(i)
RETURN count(*) AS written
