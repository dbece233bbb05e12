// Why a trajectory failed: its status and reason, then every criterion it lost with the judge's evidence.
// :param trajectory_id => '<a trajectory id>'   (`graphforge browser` fills in a rejected or discarded one)
MATCH (t:Trajectory {trajectory_id: $trajectory_id})
OPTIONAL MATCH (j:Judgment)-[:SCORES]->(t)
OPTIONAL MATCH (j)-[r:RATES]->(c:Criterion)
  WHERE (c.polarity = 'negative' AND r.score > 0) OR (c.polarity <> 'negative' AND r.score < 1)
WITH t, j, r, c
ORDER BY j.arm, r.score, c.criterion_id
RETURN t.status AS status, t.status_reason AS status_reason, j.arm AS arm, j.q AS q,
       j.deliverables_ok AS deliverables_ok, j.reason AS judge_reason, c.polarity AS polarity,
       c.requirement AS lost_criterion, r.score AS score, r.evidence AS evidence
