// Recorded exports per kind (sft, rft, rubrics) with their rows, and the benchmarks and audits beside them.
// (no parameters)
CALL { MATCH (b:Benchmark) RETURN count(b) AS benchmarks }
CALL { MATCH (a:Audit) RETURN count(a) AS audits }
CALL {
  OPTIONAL MATCH (e:Export)
  WITH e.kind AS kind, count(e) AS exports, sum(coalesce(e.rows, 0)) AS rows
  WHERE kind IS NOT NULL
  RETURN collect({kind: kind, exports: exports, rows: rows}) AS exports
}
RETURN benchmarks, audits, exports
