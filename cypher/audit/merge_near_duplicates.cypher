// Record text overlaps of one audit as NEAR_DUPLICATE edges from benchmark files to training files.
// $rows: list<NearDuplicateRow>; $audit_id: the Audit these findings belong to
UNWIND $rows AS row
MATCH (b:BenchmarkFile {sha256: row.benchmark_key})
MATCH (f:File {sha256: row.training_sha256})
MERGE (b)-[r:NEAR_DUPLICATE {audit_id: $audit_id}]->(f)
SET r.score = row.score, r.shared_ngrams = row.shared_ngrams, r.jaccard = row.jaccard,
    r.identical = row.identical, r.found_by = row.found_by, r.passages = row.passages
RETURN count(*) AS written
