// Which of the given benchmark names are loaded.
// $benchmarks: list<string>
MATCH (b:Benchmark)
WHERE b.name IN $benchmarks
RETURN b.name AS name, b.task_count AS task_count, b.file_count AS file_count
ORDER BY name
