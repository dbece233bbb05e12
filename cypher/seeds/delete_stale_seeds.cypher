// Delete seeds a rebuild no longer produces, unless a workspace was already built for them.
// $keep: list<string> of seed ids the current build produced
MATCH (s:Seed)
WHERE NOT s.seed_id IN $keep AND NOT EXISTS { (:Workspace)-[:FOR_SEED]->(s) }
DETACH DELETE s
RETURN count(*) AS written
