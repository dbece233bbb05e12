// Record on a workspace the task families whose Cypher pattern matches its evidence graph.
// $workspace_id: the workspace. $families: the family names, in the compiler's order.
MATCH (w:Workspace {workspace_id: $workspace_id})
SET w.supported_families = $families
