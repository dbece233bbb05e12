// Files that state at least four requirements (shall / must / is required to): a checklist source.
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(f:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(r:Fact)
WHERE r.kind = 'requirement' AND coalesce(c.role, 'core') IN ['core', 'supporting']
WITH f, collect(r.fact_id) AS requirements
WHERE size(requirements) >= 4
RETURN f.sha256 AS sha256, requirements
ORDER BY size(requirements) DESC, sha256
