// The workspace-relative paths of every file in a workspace (what the working agent may see).
// $workspace_id: the workspace.
MATCH (:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(f:File)
RETURN c.path AS path, f.sha256 AS sha256, f.valid AS valid
ORDER BY path
