// The sha256 of every file some workspaces contain (a split's training side).
// $workspace_ids: list<string>.
MATCH (w:Workspace)-[:CONTAINS]->(f:File)
WHERE w.workspace_id IN $workspace_ids
RETURN DISTINCT f.sha256 AS sha256
