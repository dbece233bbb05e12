// Attach reference files to their benchmark under the path they have inside it.
// $rows: list<BenchmarkFileLinkRow>
UNWIND $rows AS row
MATCH (b:Benchmark {name: row.benchmark})
MATCH (f:BenchmarkFile {sha256: row.sha256})
MERGE (b)-[:HAS_FILE {path: row.path}]->(f)
RETURN count(*) AS written
