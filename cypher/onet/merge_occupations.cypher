// Upsert occupations keyed by O*NET-SOC code and link each to the release it was last loaded from.
// $rows: list<OccupationRow>
UNWIND $rows AS row
MERGE (o:Occupation {soc_code: row.soc_code})
SET o.title = row.title, o.description = row.description, o.release_id = row.release_id
WITH o, row
MATCH (r:OnetRelease {release_id: row.release_id})
MERGE (o)-[:IN_RELEASE]->(r)
RETURN count(*) AS written
