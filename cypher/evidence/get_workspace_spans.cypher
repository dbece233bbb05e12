// Every span of the valid files of a workspace, in file then span order (the extractor's input).
// $workspace_id: the workspace.
MATCH (:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(f:File)-[:HAS_SPAN]->(s:Span)
WHERE coalesce(f.valid, true)
RETURN s.span_id AS span_id, f.sha256 AS file_sha256, s.locator AS locator, s.kind AS kind,
       s.ordinal AS ordinal, s.text AS text, coalesce(s.formulas_json, '') AS formulas_json, c.path AS path,
       f.format AS format
ORDER BY path, ordinal
