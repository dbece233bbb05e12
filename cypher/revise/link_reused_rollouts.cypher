// Link a rollout copied onto a revised spec to the rollout it reuses.
// $rows: list<{trajectory_id, reused_from}>
UNWIND $rows AS row
MATCH (t:Trajectory {trajectory_id: row.trajectory_id})
MATCH (o:Trajectory {trajectory_id: row.reused_from})
MERGE (t)-[:REUSED_FROM]->(o)
RETURN count(*) AS written
