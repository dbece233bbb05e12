// Relationship totals per type (used to prove re-runs change nothing).
// (no parameters)
MATCH ()-[r]->()
RETURN type(r) AS type, count(*) AS count
ORDER BY type
