// Facts and DEPENDS_ON edges (by kind) inside one workspace.
// $workspace_id: the workspace.
MATCH (:Workspace {workspace_id: $workspace_id})-[:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(f:Fact)
WITH collect(DISTINCT f) AS facts
UNWIND facts AS a
OPTIONAL MATCH (a)-[d:DEPENDS_ON]->(b:Fact)
WHERE b IN facts
WITH facts, d.kind AS kind, count(d) AS n
RETURN size(facts) AS facts, sum(n) AS edges,
       sum(CASE kind WHEN 'interpret' THEN n ELSE 0 END) AS interpret,
       sum(CASE kind WHEN 'compare' THEN n ELSE 0 END) AS compare,
       sum(CASE kind WHEN 'reconcile' THEN n ELSE 0 END) AS reconcile,
       sum(CASE kind WHEN 'derive' THEN n ELSE 0 END) AS derive,
       sum(CASE kind WHEN 'supersedes' THEN n ELSE 0 END) AS supersedes,
       sum(CASE kind WHEN 'reference' THEN n ELSE 0 END) AS reference
