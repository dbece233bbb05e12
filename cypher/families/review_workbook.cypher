// Review workbook: figures that two files state for the same metric and period, or a total and its parts.
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(a:Fact)
MATCH (a)-[d:DEPENDS_ON]->(b:Fact)
WHERE d.kind IN ['compare', 'reconcile', 'derive'] AND coalesce(a.kind, 'quantity') = 'quantity'
  AND coalesce(b.kind, 'quantity') = 'quantity'
RETURN a.fact_id AS src, b.fact_id AS dst, d.kind AS kind
ORDER BY kind, src, dst
LIMIT 500
