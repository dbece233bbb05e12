// Per benchmark occupation: its tasks, the taxonomy occupation it matched, and the training seeds for it.
// $benchmarks: list<string>
MATCH (b:Benchmark)-[:HAS_TASK]->(t:BenchmarkTask)
WHERE b.name IN $benchmarks AND (t.occupation IS NOT NULL OR t.soc_code IS NOT NULL)
OPTIONAL MATCH (t)-[:FOR_OCCUPATION]->(o:Occupation)
OPTIONAL MATCH (o)<-[:FOR_OCCUPATION]-(s:Seed)
WITH coalesce(t.occupation, o.title, t.soc_code) AS occupation, o.soc_code AS soc_code,
     collect(DISTINCT t.task_key) AS task_keys, count(DISTINCT s) AS seeds
RETURN occupation, soc_code, task_keys, seeds, soc_code IS NOT NULL AS in_taxonomy
ORDER BY occupation
