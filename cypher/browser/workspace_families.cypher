// Task families per workspace: the families whose Cypher pattern (cypher/families/) matches its evidence
// graph, as `graphforge specs compile` last found them, and the current specs compiled for each with why
// that family was chosen. Run as is (no parameters).
MATCH (w:Workspace)
OPTIONAL MATCH (s:TaskSpec)-[:COMPILED_FROM]->(w)
WHERE NOT EXISTS { (:TaskSpec)-[:REVISED_FROM]->(s) }
  AND NOT EXISTS { MATCH (n:TaskSpec {base_id: s.base_id}) WHERE n.version > s.version }
  AND s.retired_at IS NULL  // retired: a compile of every family no longer produced it
WITH w, s ORDER BY s.family, s.spec_id
RETURN w.workspace_id AS workspace, coalesce(w.supported_families, []) AS supported_families,
       [x IN collect(s) | x.family + ' -> ' + x.spec_id] AS compiled_specs,
       [x IN collect(s) | x.family_reason][..3] AS why
ORDER BY workspace
