// Names of every index that no constraint owns, token lookup indexes excluded.
// (no parameters)
SHOW INDEXES YIELD name, type, owningConstraint
WHERE type <> 'LOOKUP' AND owningConstraint IS NULL
RETURN name
