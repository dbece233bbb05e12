// The parsed text of each task's reference files (what the workers were given), for the judge's prompt.
// $task_keys: list<string>
UNWIND $task_keys AS key
MATCH (t:BenchmarkTask {task_key: key})-[r:REFERENCES]->(f:BenchmarkFile)
RETURN t.task_key AS task_key, r.path AS path, coalesce(f.text, '') AS text
ORDER BY task_key, path
