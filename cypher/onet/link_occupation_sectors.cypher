// Point each occupation at its sector (and sub-sector), replacing links from an earlier scheme.
// $rows: list<OccupationRow>
UNWIND $rows AS row
MATCH (o:Occupation {soc_code: row.soc_code})
OPTIONAL MATCH (o)-[old:IN_SECTOR|IN_SUB_SECTOR]->(prev:Sector)
  WHERE NOT prev.code IN [row.sector_code, row.sub_sector_code]
DELETE old
WITH DISTINCT o, row
OPTIONAL MATCH (s:Sector {code: row.sector_code})
OPTIONAL MATCH (sub:Sector {code: row.sub_sector_code})
FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | MERGE (o)-[:IN_SECTOR]->(s))
FOREACH (_ IN CASE WHEN sub IS NULL THEN [] ELSE [1] END | MERGE (o)-[:IN_SUB_SECTOR]->(sub))
RETURN count(*) AS written
