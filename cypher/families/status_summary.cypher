// Statuses recorded for items in trackers and logs.
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(s:Fact)
WHERE s.kind = 'status' AND coalesce(c.role, 'core') IN ['core', 'supporting']
WITH collect(s.fact_id) AS statuses
WHERE size(statuses) >= 3
UNWIND statuses AS fact_id
RETURN fact_id
ORDER BY fact_id
LIMIT 400
