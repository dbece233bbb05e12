// How many trajectories carry each status (materialised, failed, judged, admitted, rejected, discarded).
// no parameters
MATCH (t:Trajectory)
RETURN coalesce(t.status, '(none)') AS status, count(t) AS trajectories
ORDER BY trajectories DESC, status
