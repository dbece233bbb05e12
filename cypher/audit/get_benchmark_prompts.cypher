// Task prompts of the given benchmarks (a training file that quotes a prompt is contamination too).
// $benchmarks: list<string>
MATCH (b:Benchmark)-[:HAS_TASK]->(t:BenchmarkTask)
WHERE b.name IN $benchmarks
RETURN t.task_key AS task_key, t.task_id AS task_id, b.name AS benchmark, t.prompt AS prompt
ORDER BY task_key
