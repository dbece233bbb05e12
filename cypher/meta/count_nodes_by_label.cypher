// Node totals per label, bookkeeping labels included (used to prove re-runs change nothing).
// (no parameters)
MATCH (n)
UNWIND labels(n) AS label
RETURN label, count(*) AS count
ORDER BY label
