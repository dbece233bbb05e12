// A workspace's seed as recorded: its id, whether that Seed exists, how it was chosen (user / fit) and its fit.
// $workspace_id: string
MATCH (w:Workspace {workspace_id: $workspace_id})
OPTIONAL MATCH (w)-[:FOR_SEED]->(s:Seed)
WITH w, head(collect(s.seed_id)) AS linked
RETURN coalesce(linked, w.seed_id) AS seed_id, linked IS NOT NULL AS seed_exists,
       w.seed_source AS seed_source, w.seed_fit AS seed_fit
