// Every Export node with the trajectories it includes (for tests and Neo4j Browser checks).
// no parameters
MATCH (e:Export)
OPTIONAL MATCH (e)-[:INCLUDES]->(t:Trajectory)
WITH e, t ORDER BY t.trajectory_id
RETURN e.export_id AS export_id, e.kind AS kind, e.arm AS arm, e.override AS override, e.audit_id AS audit_id,
       e.rows AS rows, collect(t.trajectory_id) AS included
ORDER BY export_id
