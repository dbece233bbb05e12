// Sections that list required items (checklists, deliverables, criteria): at least three under one heading.
// Lists whose items another file states too (compare edges) come first: their spec can ask for both files.
// A list in a file that a later version supersedes is marked: the family prefers the current version.
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(f:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(i:Fact)
WHERE i.kind = 'list_item' AND coalesce(c.role, 'core') IN ['core', 'supporting']
WITH f, i.entity AS heading, collect(i.fact_id) AS items,
     sum(CASE WHEN EXISTS { (i)-[:DEPENDS_ON {kind: 'compare'}]-(:Fact) } THEN 1 ELSE 0 END) AS restated
WHERE size(items) >= 3
WITH f, heading, items, restated,
     EXISTS {
       MATCH (f)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(:Fact)<-[:DEPENDS_ON {kind: 'supersedes'}]-(:Fact)
     } AS superseded
RETURN f.sha256 AS sha256, heading, items, restated > 0 AS restated, superseded
ORDER BY CASE WHEN restated > 0 THEN 0 ELSE 1 END, size(items) DESC, sha256, heading
LIMIT 50
