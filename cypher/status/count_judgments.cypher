// Judgments per arm (anchored, unanchored, random), with how many trajectories each arm scored.
// (no parameters)
MATCH (j:Judgment)-[:SCORES]->(t:Trajectory)
RETURN j.arm AS arm, count(j) AS judgments, count(DISTINCT t) AS trajectories
ORDER BY arm
