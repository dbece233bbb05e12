// RFT candidate pool: every trajectory that attempts a current spec (one no revision supersedes; optionally
// one rollout model), with its judgments. $rollout_model: string or null (null: every model)
MATCH (t:Trajectory)
WHERE t.spec_id IS NOT NULL AND ($rollout_model IS NULL OR t.model = $rollout_model)
  AND NOT EXISTS { MATCH (:TaskSpec)-[:REVISED_FROM]->(:TaskSpec {spec_id: t.spec_id}) }
  AND NOT EXISTS { MATCH (r:TaskSpec {spec_id: t.spec_id}) WHERE r.retired_at IS NOT NULL }
OPTIONAL MATCH (j:Judgment)-[:SCORES]->(t)
WITH t, j ORDER BY j.judgment_id
WITH t, [x IN collect(j) | {judgment_id: x.judgment_id, judge: x.judge, arm: x.arm, q: x.q,
                            deliverables_ok: x.deliverables_ok, created_at: toString(x.created_at)}] AS judgments
RETURN t.spec_id AS spec_id, t.trajectory_id AS trajectory_id, t.status AS status, judgments
ORDER BY spec_id, trajectory_id
