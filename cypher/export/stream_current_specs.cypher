// Ids of the current task specs (no later revision points at them, no newer version of their base), optionally only those with admitted rollouts.
// $only_admitted: bool
MATCH (s:TaskSpec)
WHERE NOT EXISTS { (:TaskSpec)-[:REVISED_FROM]->(s) }
  AND NOT EXISTS { MATCH (n:TaskSpec {base_id: s.base_id}) WHERE n.version > s.version }
  AND s.retired_at IS NULL  // retired: a compile of every family no longer produced it
  AND (NOT $only_admitted OR EXISTS { (:Trajectory {status: 'admitted'})-[:ATTEMPTS]->(s) })
RETURN s.spec_id AS spec_id
ORDER BY spec_id
