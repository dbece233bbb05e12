// Names of every constraint and index except the built-in token lookup indexes.
// (no parameters)
SHOW CONSTRAINTS YIELD name RETURN name, 'constraint' AS kind
UNION ALL
SHOW INDEXES YIELD name, type, owningConstraint WHERE type <> 'LOOKUP' AND owningConstraint IS NULL
RETURN name, 'index' AS kind
