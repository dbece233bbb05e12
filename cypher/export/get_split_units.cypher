// Every current spec (no newer version of the same base) with its workspace and the occupation the
// workspace's seed serves (null when it has none): what a train / held-out split divides.
// (no parameters)
MATCH (s:TaskSpec)
WHERE NOT EXISTS { MATCH (n:TaskSpec {base_id: s.base_id}) WHERE n.version > s.version }
  AND s.retired_at IS NULL  // retired: a compile of every family no longer produced it
OPTIONAL MATCH (w:Workspace {workspace_id: s.workspace_id})
OPTIONAL MATCH (w)-[:FOR_SEED]->(:Seed)-[:FOR_OCCUPATION]->(o:Occupation)
RETURN s.spec_id AS spec_id, s.workspace_id AS workspace_id, w.root AS root,
       min(o.soc_code) AS occupation
ORDER BY spec_id
