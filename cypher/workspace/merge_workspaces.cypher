// Upsert workspaces by id and link each to its seed when that seed exists (no stub seeds are made).
// $rows: list<WorkspaceRow>
UNWIND $rows AS row
MERGE (w:Workspace {workspace_id: row.workspace_id})
SET w.name = row.name, w.root = row.root, w.seed_id = row.seed_id
WITH w, row
OPTIONAL MATCH (s:Seed {seed_id: row.seed_id})
FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | MERGE (w)-[:FOR_SEED]->(s))
RETURN count(*) AS written
