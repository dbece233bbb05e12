// File nodes get a readable name (Neo4j Browser captions them with it): the base name of a path a
// workspace holds them under, the alphabetically first when the same bytes have several names. The
// loader sets it from then on (workspace/merge_workspace_files, workspace/link_workspace_files); this
// names the File nodes of graphs loaded before. Files no workspace holds keep no name.
MATCH (f:File) WHERE f.name IS NULL
CALL (f) {
  MATCH (:Workspace)-[c:CONTAINS]->(f)
  WITH last(split(c.path, '/')) AS name ORDER BY name LIMIT 1
  SET f.name = name
} IN TRANSACTIONS OF 5000 ROWS;
