// Drop one constraint by name (test resets and `db reset --schema`).
// $name
DROP CONSTRAINT $name IF EXISTS
