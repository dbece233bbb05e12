// Link benchmark tasks to taxonomy occupations by O*NET-SOC code, else by case-insensitive title.
// $benchmarks: list<string> (benchmark names)
MATCH (b:Benchmark)-[:HAS_TASK]->(t:BenchmarkTask)
WHERE b.name IN $benchmarks AND (t.soc_code IS NOT NULL OR t.occupation IS NOT NULL)
MATCH (o:Occupation)
WHERE o.soc_code = t.soc_code
   OR (t.soc_code IS NULL AND toLower(trim(o.title)) = toLower(trim(t.occupation)))
MERGE (t)-[:FOR_OCCUPATION]->(o)
RETURN count(*) AS written
