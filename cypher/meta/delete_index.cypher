// Drop one index by name (test resets and `db reset --schema`).
// $name
DROP INDEX $name IF EXISTS
