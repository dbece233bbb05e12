// Files that state at least four requirements (shall / must / is required to): a checklist source. Current
// files come before files a later version supersedes; then files whose requirements another file states too
// (compare edges): their spec can ask for both files.
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(f:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(r:Fact)
WHERE r.kind = 'requirement' AND coalesce(c.role, 'core') IN ['core', 'supporting']
WITH f, collect(r.fact_id) AS requirements,
     sum(CASE WHEN EXISTS { (r)-[:DEPENDS_ON {kind: 'compare'}]-(:Fact) } THEN 1 ELSE 0 END) AS restated
WHERE size(requirements) >= 4
WITH f, requirements, restated,
     EXISTS {
       MATCH (f)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(:Fact)<-[:DEPENDS_ON {kind: 'supersedes'}]-(:Fact)
     } AS superseded
RETURN f.sha256 AS sha256, requirements
ORDER BY CASE WHEN superseded THEN 1 ELSE 0 END, CASE WHEN restated > 0 THEN 0 ELSE 1 END,
         size(requirements) DESC, sha256
