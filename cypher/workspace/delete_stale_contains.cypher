// Unlink files of a workspace whose path is gone, or now holds other bytes, since the last load.
// $workspace_id: string; $current: list<string> of path + '|' + sha256 for every file found this run
MATCH (w:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(f:File)
WHERE NOT (c.path + '|' + f.sha256) IN $current
DELETE c
RETURN count(*) AS written
