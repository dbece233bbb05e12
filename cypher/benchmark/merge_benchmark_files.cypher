// Upsert benchmark reference files keyed by sha256, with their parsed text.
// $rows: list<BenchmarkFileRow>
UNWIND $rows AS row
MERGE (f:BenchmarkFile {sha256: row.sha256})
SET f.size = row.size, f.format = row.format, f.valid = row.valid, f.invalid_reason = row.invalid_reason,
    f.parser = row.parser, f.text = row.text, f.chars = row.chars
RETURN count(*) AS written
