// Loaded benchmarks: their task and reference-file counts and the folder they were loaded from.
// $ids: list<string>|null
MATCH (b:Benchmark)
WHERE $ids IS NULL OR b.name IN $ids
RETURN b.name AS name, b.task_count AS task_count, b.file_count AS file_count, b.source_dir AS source_dir
ORDER BY name
