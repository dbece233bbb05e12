// Every saved version of one spec (same base_id), newest first, with the workspace state it was compiled from.
// $base_id: the spec's base id.
MATCH (s:TaskSpec {base_id: $base_id})
RETURN s.spec_id AS spec_id, s.version AS version, s.revised_from AS revised_from,
       s.workspace_fingerprint AS workspace_fingerprint
ORDER BY s.version DESC
