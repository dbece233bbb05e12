// Wait until every index is online (after a bulk load or a schema change), up to $seconds.
// $seconds: integer
CALL db.awaitIndexes($seconds)
