// Upsert generalized work activities (Content Model elements that IWAs roll up to).
// $rows: list<GwaRow>
UNWIND $rows AS row
MERGE (g:GWA {element_id: row.element_id})
SET g.name = row.name, g.description = row.description
RETURN count(*) AS written
