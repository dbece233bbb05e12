// Ids of every workspace, or of the one asked for.
// $workspace_id: a workspace id, or null for all.
MATCH (w:Workspace)
WHERE $workspace_id IS NULL OR w.workspace_id = $workspace_id
RETURN w.workspace_id AS workspace_id
ORDER BY workspace_id
