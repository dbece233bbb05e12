// Trajectories with a given status (admitted for SFT) whose spec is current (no revision supersedes it), in
// a stable order, with their messages and tools. $status: string
MATCH (t:Trajectory {status: $status})
// A reused rollout is copied onto the revised spec: exporting the superseded spec's original too would
// put the same conversation into the set twice (and an older statement's rollout once more).
WHERE NOT EXISTS { MATCH (:TaskSpec)-[:REVISED_FROM]->(:TaskSpec {spec_id: t.spec_id}) }
  AND NOT EXISTS { MATCH (r:TaskSpec {spec_id: t.spec_id}) WHERE r.retired_at IS NOT NULL }
RETURN t.trajectory_id AS trajectory_id, t.spec_id AS spec_id, t.messages_json AS messages_json,
       t.tools_json AS tools_json
ORDER BY t.trajectory_id
