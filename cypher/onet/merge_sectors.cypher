// Upsert sectors and sub-sectors; a sub-sector is PART_OF its sector (rows list sectors first).
// $rows: list<SectorRow>
UNWIND $rows AS row
MERGE (s:Sector {code: row.code})
SET s.name = row.name, s.scheme = row.scheme, s.level = row.level, s.parent_code = row.parent_code
WITH s, row
OPTIONAL MATCH (parent:Sector {code: row.parent_code})
FOREACH (_ IN CASE WHEN parent IS NULL THEN [] ELSE [1] END | MERGE (s)-[:PART_OF]->(parent))
RETURN count(*) AS written
