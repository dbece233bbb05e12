// Link each benchmark task to its expert deliverables (the eval oracle's answers; never shown to agents).
// $rows: list<BenchmarkReferenceRow>
UNWIND $rows AS row
MATCH (t:BenchmarkTask {task_key: row.task_key})
MATCH (f:BenchmarkFile {sha256: row.sha256})
MERGE (t)-[:HAS_GOLD {path: row.path}]->(f)
RETURN count(*) AS written
