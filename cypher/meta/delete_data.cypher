// Delete every node except migration bookkeeping, in batches (tests and `db reset`).
// (no parameters)
MATCH (n) WHERE NOT n:__GraphforgeMigration
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
RETURN count(*) AS written
