// One workspace's id, name and seed (when it was built for one).
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})
OPTIONAL MATCH (w)-[:FOR_SEED]->(s:Seed)
RETURN w.workspace_id AS workspace_id, coalesce(w.name, w.workspace_id) AS name,
       coalesce(s.seed_id, w.seed_id) AS seed_id
