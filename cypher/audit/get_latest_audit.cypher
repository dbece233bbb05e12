// The most recently completed Audit whose benchmarks include every name given (no row when none ran).
// $benchmarks: list<string> (benchmark names, e.g. ["gdpval-sample"])
MATCH (a:Audit)
WHERE size($benchmarks) > 0 AND all(name IN $benchmarks WHERE name IN a.benchmarks)
RETURN a.audit_id AS audit_id, a.benchmarks AS benchmarks, a.found_overlaps AS found_overlaps,
       a.created_at AS created_at, a.completed_at AS completed_at,
       a.training_fingerprint AS training_fingerprint, a.training_files AS training_files,
       a.benchmark_files AS benchmark_files, a.benchmark_prompts AS benchmark_prompts,
       a.hash_overlaps AS hash_overlaps, a.ngram_overlap_pairs AS ngram_overlap_pairs,
       a.near_duplicates AS near_duplicates, a.minhash_candidates AS minhash_candidates,
       a.benchmark_occupations AS benchmark_occupations, a.covered_occupations AS covered_occupations,
       a.report_html AS report_html, a.report_json AS report_json
ORDER BY a.completed_at DESC, a.audit_id
LIMIT 1
