// The files of a spec's workspace as the judge sees them: path, sha256 and hidden role (judge-only).
// $spec_id: the spec.
MATCH (s:TaskSpec {spec_id: $spec_id})
MATCH (:Workspace {workspace_id: s.workspace_id})-[c:CONTAINS]->(f:File)
RETURN c.path AS path, f.sha256 AS sha256, c.role AS role
ORDER BY path
