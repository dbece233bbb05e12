// A benchmark's tasks with the files an agent may see (REFERENCES) and the expert's files (HAS_GOLD),
// each under its path inside the benchmark folder.
// $benchmark: string, $task_ids: list<string> | null (null: every task)
MATCH (b:Benchmark {name: $benchmark})-[:HAS_TASK]->(t:BenchmarkTask)
WHERE $task_ids IS NULL OR t.task_id IN $task_ids
RETURN t.task_key AS task_key, t.task_id AS task_id, t.prompt AS prompt,
       t.deliverable_text AS deliverable_text,
       coalesce(t.deliverables, []) AS deliverables, b.source_dir AS source_dir,
       COLLECT { MATCH (t)-[:REFERENCES]->(:BenchmarkFile)<-[h:HAS_FILE]-(b) RETURN DISTINCT h.path } AS files,
       COLLECT { MATCH (t)-[:HAS_GOLD]->(:BenchmarkFile)<-[h:HAS_FILE]-(b) RETURN DISTINCT h.path } AS gold
ORDER BY t.task_id
