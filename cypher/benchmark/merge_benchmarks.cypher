// Upsert named benchmarks (a set of evaluation tasks and their reference files).
// $rows: list<BenchmarkRow>
UNWIND $rows AS row
MERGE (b:Benchmark {name: row.name})
SET b.source_dir = row.source_dir, b.task_count = row.task_count, b.file_count = row.file_count
RETURN count(*) AS written
