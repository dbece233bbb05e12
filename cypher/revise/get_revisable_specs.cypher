// The newest version of each spec family (no newer revision exists), optionally limited to some spec ids.
// $spec_ids: list<string> or null (every current spec).
MATCH (s:TaskSpec)
WHERE ($spec_ids IS NULL OR s.spec_id IN $spec_ids)
  AND NOT EXISTS { MATCH (:TaskSpec)-[:REVISED_FROM]->(s) }
  AND NOT EXISTS { MATCH (n:TaskSpec {base_id: s.base_id}) WHERE n.version > s.version }
  AND s.retired_at IS NULL  // retired: a compile of every family no longer produced it
RETURN s.spec_id AS spec_id, s.base_id AS base_id, s.version AS version
ORDER BY s.spec_id
