// Point a workspace at one seed (or none): drop its other FOR_SEED links, link this one, record how it was chosen.
// $workspace_id: string; $seed_id: string|null; $seed_source: 'user'|'fit'|null; $seed_fit: float|null
MATCH (w:Workspace {workspace_id: $workspace_id})
OPTIONAL MATCH (w)-[old:FOR_SEED]->(o:Seed)
WHERE $seed_id IS NULL OR o.seed_id <> $seed_id
DELETE old
WITH DISTINCT w
SET w.seed_id = $seed_id, w.seed_source = $seed_source, w.seed_fit = $seed_fit
WITH w
OPTIONAL MATCH (s:Seed {seed_id: $seed_id})
FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | MERGE (w)-[:FOR_SEED]->(s))
RETURN count(s) AS linked
