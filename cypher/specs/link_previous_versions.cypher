// Link each spec compiled from a changed workspace to the version it follows; the old version stays as it was.
// $rows: list<{spec_id, previous}>
UNWIND $rows AS row
MATCH (new:TaskSpec {spec_id: row.spec_id})
MATCH (old:TaskSpec {spec_id: row.previous})
MERGE (new)-[:PREVIOUS_VERSION]->(old)
SET new.previous_version = row.previous
RETURN count(*) AS written
