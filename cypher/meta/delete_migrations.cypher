// Forget every applied migration (only after dropping the schema they created).
// (no parameters)
MATCH (m:__GraphforgeMigration)
DELETE m
RETURN count(*) AS written
