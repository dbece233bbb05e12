// Reference files of the given benchmarks with their parsed text and every path they have there.
// $benchmarks: list<string>
MATCH (b:Benchmark)-[h:HAS_FILE]->(f:BenchmarkFile)
WHERE b.name IN $benchmarks
WITH f, collect(DISTINCT b.name) AS benchmarks, collect(DISTINCT b.name + "/" + h.path) AS labels
RETURN f.sha256 AS sha256, coalesce(f.text, "") AS text, benchmarks, labels
ORDER BY sha256
