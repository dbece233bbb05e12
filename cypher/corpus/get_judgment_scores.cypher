// Q of every judgment with its arm, for the Q distribution.
// no parameters
MATCH (j:Judgment)-[:SCORES]->(:Trajectory)
WHERE j.q IS NOT NULL
RETURN coalesce(j.arm, '(none)') AS arm, j.q AS q
ORDER BY arm, q
