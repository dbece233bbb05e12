// Upsert benchmark tasks keyed by "<benchmark>:<task_id>" and attach them to their benchmark.
// $rows: list<BenchmarkTaskRow>
UNWIND $rows AS row
MATCH (b:Benchmark {name: row.benchmark})
MERGE (t:BenchmarkTask {task_key: row.task_key})
SET t.benchmark = row.benchmark, t.task_id = row.task_id, t.prompt = row.prompt,
    t.prompt_hash = row.prompt_hash, t.occupation = row.occupation, t.soc_code = row.soc_code,
    t.sector = row.sector, t.deliverable_text = row.deliverable_text,
    t.deliverables = row.deliverables
MERGE (b)-[:HAS_TASK]->(t)
RETURN count(*) AS written
