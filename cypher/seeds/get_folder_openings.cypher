// What a workspace's files say about their subject: each file's path and the openings of its first spans.
// $workspace_id: string; $skip_paths: list<string>; $spans_per_file: int; $chars_per_span: int
MATCH (:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(f:File)
WHERE coalesce(c.role, 'core') <> 'ambient' AND NOT c.path IN $skip_paths
CALL (f) {
  OPTIONAL MATCH (f)-[:HAS_SPAN]->(s:Span)
  WITH s ORDER BY s.ordinal
  LIMIT $spans_per_file
  RETURN [x IN collect(left(s.text, $chars_per_span)) WHERE x IS NOT NULL] AS openings
}
RETURN c.path AS path, openings
ORDER BY path
