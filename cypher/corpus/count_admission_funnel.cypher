// Admission funnel over every trajectory: materialised -> judged -> passed Q -> admitted after cleaning.
// $admit_q: float admission threshold on Q (a discarded trajectory passed Q when a non-random judgment beat it)
MATCH (t:Trajectory)
WITH t, coalesce(t.status, 'materialised') AS status,
     COUNT { (:Judgment)-[:SCORES]->(t) } > 0 AS judged,
     COLLECT { MATCH (j:Judgment)-[:SCORES]->(t) WHERE coalesce(j.arm, 'anchored') <> 'random' RETURN j.q } AS qs
RETURN count(t) AS trajectories,
       count(CASE WHEN status <> 'failed' THEN 1 END) AS materialised,
       count(CASE WHEN status IN ['judged', 'admitted', 'rejected'] OR (status = 'discarded' AND judged)
                  THEN 1 END) AS judged,
       count(CASE WHEN status = 'admitted'
                    OR (status = 'discarded' AND any(q IN qs WHERE q > $admit_q)) THEN 1 END) AS passed_q,
       count(CASE WHEN status = 'admitted' THEN 1 END) AS admitted
