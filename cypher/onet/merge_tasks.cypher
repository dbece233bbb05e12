// Upsert task statements and link each to the occupation that performs it (keeps any DIGITAL label).
// $rows: list<TaskRow>
UNWIND $rows AS row
MERGE (t:Task {task_id: row.task_id})
SET t.statement = row.statement, t.task_type = row.task_type, t.soc_code = row.soc_code,
    t.release_id = row.release_id
WITH t, row
OPTIONAL MATCH (other:Occupation)-[moved:PERFORMS]->(t) WHERE other.soc_code <> row.soc_code
DELETE moved
WITH DISTINCT t, row
MATCH (o:Occupation {soc_code: row.soc_code})
MERGE (o)-[:PERFORMS]->(t)
RETURN count(*) AS written
