// Trajectories per status (materialised, failed, judged, admitted, rejected, discarded; none: unset).
// $unset: string (the name a trajectory without a status is counted under)
MATCH (t:Trajectory)
RETURN coalesce(t.status, $unset) AS status, count(t) AS trajectories
ORDER BY status
