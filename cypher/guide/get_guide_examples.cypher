// Real ids for the Browser guide's examples: a selected seed with a workspace, its occupation, a current
// spec with anchored criteria, its most-anchored criterion, a failed (else the lowest-Q) trajectory, and the
// latest stored Elo fit.
// no parameters
CALL () {
  OPTIONAL MATCH (s:Seed)
  WITH s ORDER BY EXISTS { (:Workspace)-[:FOR_SEED]->(s) } DESC, coalesce(s.selection_rank, 2147483647), s.seed_id
  RETURN s.seed_id AS seed_id, s.soc_code AS soc_code LIMIT 1
}
CALL () {
  OPTIONAL MATCH (sp:TaskSpec)-[:HAS_CRITERION]->(c:Criterion)-[:ANCHORED_TO]->(f:Fact)
  WHERE NOT EXISTS { (:TaskSpec)-[:REVISED_FROM]->(sp) }
  WITH sp, c, count(f) AS anchors,
       COUNT { (:Trajectory)-[:ATTEMPTS]->(sp) } AS attempts
  ORDER BY attempts DESC, anchors DESC, sp.spec_id, c.criterion_id
  RETURN sp.spec_id AS spec_id, c.criterion_id AS criterion_id LIMIT 1
}
CALL () {
  OPTIONAL MATCH (t:Trajectory)
  OPTIONAL MATCH (j:Judgment)-[:SCORES]->(t)
  WITH t, min(j.q) AS q
  ORDER BY CASE t.status WHEN 'rejected' THEN 0 WHEN 'discarded' THEN 1 WHEN 'failed' THEN 2 ELSE 3 END,
           q, t.trajectory_id
  RETURN t.trajectory_id AS trajectory_id LIMIT 1
}
CALL () {
  OPTIONAL MATCH (r:RatingRun)
  WITH r ORDER BY r.created_at DESC, r.run_id
  RETURN r.run_id AS rating_run_id LIMIT 1
}
RETURN seed_id, soc_code, spec_id, criterion_id, trajectory_id, rating_run_id
