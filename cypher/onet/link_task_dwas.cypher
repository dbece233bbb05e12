// Link task statements to their detailed work activities (task types).
// $rows: list<TaskDwaRow>
UNWIND $rows AS row
MATCH (t:Task {task_id: row.task_id})
MATCH (d:DWA {dwa_id: row.dwa_id})
MERGE (t)-[:HAS_TYPE]->(d)
RETURN count(*) AS written
