// Link an export to the trajectories it includes.
// $rows: list<{export_id, trajectory_id}>
UNWIND $rows AS row
MATCH (e:Export {export_id: row.export_id})
MATCH (t:Trajectory {trajectory_id: row.trajectory_id})
MERGE (e)-[:INCLUDES]->(t)
RETURN count(*) AS written
