// Facts and DEPENDS_ON edges (by kind) inside one workspace.
// $workspace_id: the workspace.
MATCH (:Workspace {workspace_id: $workspace_id})-[:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(f:Fact)
WITH collect(DISTINCT f) AS facts
UNWIND facts AS a
OPTIONAL MATCH (a)-[d:DEPENDS_ON]->(b:Fact)
WHERE b IN facts
RETURN size(facts) AS facts, count(d) AS edges,
       count(CASE d.kind WHEN 'interpret' THEN 1 END) AS interpret,
       count(CASE d.kind WHEN 'compare' THEN 1 END) AS compare,
       count(CASE d.kind WHEN 'reconcile' THEN 1 END) AS reconcile,
       count(CASE d.kind WHEN 'derive' THEN 1 END) AS derive
