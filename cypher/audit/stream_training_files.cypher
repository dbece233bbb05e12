// Every file any workspace contains, with its workspace paths and span texts in file order.
// (no parameters)
MATCH (:Workspace)-[c:CONTAINS]->(f:File)
WITH f, collect(DISTINCT c.path) AS paths
ORDER BY f.sha256
CALL (f) {
  OPTIONAL MATCH (f)-[:HAS_SPAN]->(s:Span)
  WITH s ORDER BY s.ordinal
  RETURN collect(s.text) AS texts
}
RETURN f.sha256 AS sha256, paths, texts
