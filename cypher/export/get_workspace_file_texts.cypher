// The files of some workspaces with their paths and span texts in file order (a split's held-out side).
// $workspace_ids: list<string>.
MATCH (w:Workspace)-[c:CONTAINS]->(f:File)
WHERE w.workspace_id IN $workspace_ids
WITH f, collect(DISTINCT c.path) AS paths
ORDER BY f.sha256
CALL (f) {
  OPTIONAL MATCH (f)-[:HAS_SPAN]->(s:Span)
  WITH s ORDER BY s.ordinal
  RETURN collect(s.text) AS texts
}
RETURN f.sha256 AS sha256, paths, texts
