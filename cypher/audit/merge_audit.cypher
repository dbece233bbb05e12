// Upsert one Audit node keyed by its content-derived audit_id and link it to the benchmarks it covered.
// $rows: list<AuditRow>; $now: ISO-8601 UTC timestamp of this run
UNWIND $rows AS row
MERGE (a:Audit {audit_id: row.audit_id})
  ON CREATE SET a.created_at = $now
SET a.completed_at = $now, a.benchmarks = row.benchmarks, a.found_overlaps = row.found_overlaps,
    a.training_fingerprint = row.training_fingerprint, a.benchmark_fingerprint = row.benchmark_fingerprint,
    a.training_files = row.training_files, a.benchmark_files = row.benchmark_files,
    a.benchmark_prompts = row.benchmark_prompts, a.hash_overlaps = row.hash_overlaps,
    a.ngram_overlap_pairs = row.ngram_overlap_pairs, a.near_duplicates = row.near_duplicates,
    a.minhash_candidates = row.minhash_candidates, a.benchmark_occupations = row.benchmark_occupations,
    a.covered_occupations = row.covered_occupations, a.ngram_size = row.ngram_size,
    a.min_shared_ngrams = row.min_shared_ngrams, a.minhash_threshold = row.minhash_threshold,
    a.num_perm = row.num_perm, a.training_tokens = row.training_tokens,
    a.benchmark_tokens = row.benchmark_tokens, a.report_html = row.report_html,
    a.report_json = row.report_json, a.run_id = row.run_id
WITH a, row
CALL (a, row) {
  UNWIND row.benchmarks AS name
  MATCH (b:Benchmark {name: name})
  MERGE (a)-[:AUDITED]->(b)
}
RETURN count(*) AS written
