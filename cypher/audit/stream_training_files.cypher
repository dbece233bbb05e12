// Every file any workspace contains, with its workspace paths, span texts in file order and validity
// (a broken file is still checked for identical bytes but is not counted as a training file).
// (no parameters)
MATCH (:Workspace)-[c:CONTAINS]->(f:File)
WITH f, collect(DISTINCT c.path) AS paths
ORDER BY f.sha256
CALL (f) {
  OPTIONAL MATCH (f)-[:HAS_SPAN]->(s:Span)
  WITH s ORDER BY s.ordinal
  RETURN collect(s.text) AS texts
}
RETURN f.sha256 AS sha256, paths, texts, coalesce(f.valid, true) AS valid
