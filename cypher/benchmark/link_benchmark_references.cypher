// Link each benchmark task to the reference files its record names.
// $rows: list<BenchmarkReferenceRow>
UNWIND $rows AS row
MATCH (t:BenchmarkTask {task_key: row.task_key})
MATCH (f:BenchmarkFile {sha256: row.sha256})
MERGE (t)-[:REFERENCES {path: row.path}]->(f)
RETURN count(*) AS written
