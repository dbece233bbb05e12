// Link each revised spec to the version it revises.
// $rows: list<{spec_id, revised_from, changed}>
UNWIND $rows AS row
MATCH (new:TaskSpec {spec_id: row.spec_id})
MATCH (old:TaskSpec {spec_id: row.revised_from})
MERGE (new)-[r:REVISED_FROM]->(old)
SET r.changed = row.changed
RETURN count(*) AS written
