// Day-precision dates in trusted files (deadlines, milestones), with the dates other files state instead.
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(d:Fact)
WHERE d.kind = 'date' AND size(d.normalized) = 10 AND coalesce(c.role, 'core') IN ['core', 'supporting']
OPTIONAL MATCH (d)-[:DEPENDS_ON {kind: 'reconcile'}]-(o:Fact {kind: 'date'})
WITH d, collect(DISTINCT o.fact_id) AS conflicts
WITH collect({fact_id: d.fact_id, conflicts: conflicts}) AS dates
WHERE size(dates) >= 3
UNWIND dates AS row
RETURN row.fact_id AS fact_id, row.conflicts AS conflicts
ORDER BY fact_id
