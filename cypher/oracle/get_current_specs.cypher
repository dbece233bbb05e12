// Ids of the current specs (no newer version of the same base), optionally limited to some ids.
// $spec_ids: list<string> or null (every current spec).
MATCH (s:TaskSpec)
WHERE ($spec_ids IS NULL OR s.spec_id IN $spec_ids)
  AND NOT EXISTS { MATCH (n:TaskSpec {base_id: s.base_id}) WHERE n.version > s.version }
RETURN s.spec_id AS spec_id
ORDER BY spec_id
