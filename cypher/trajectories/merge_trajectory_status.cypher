// Set the status of trajectories (admission, cleaning) with the reason for the decision.
// $rows: list<{trajectory_id, status, reason}>
UNWIND $rows AS row
MATCH (t:Trajectory {trajectory_id: row.trajectory_id})
SET t.status = row.status, t.status_reason = row.reason, t.status_at = datetime()
RETURN count(*) AS written
