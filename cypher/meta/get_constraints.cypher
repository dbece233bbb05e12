// Names of every constraint.
// (no parameters)
SHOW CONSTRAINTS YIELD name
RETURN name
