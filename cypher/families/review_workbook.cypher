// Review workbook: figures that two files state for the same metric and period, or a total and its parts,
// each side marked when its file is one a later version supersedes.
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[:CONTAINS]->(fa:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(a:Fact)
MATCH (a)-[d:DEPENDS_ON]->(b:Fact)-[:FROM_SPAN]->(:Span)<-[:HAS_SPAN]-(fb:File)
WHERE d.kind IN ['compare', 'reconcile', 'derive'] AND coalesce(a.kind, 'quantity') = 'quantity'
  AND coalesce(b.kind, 'quantity') = 'quantity'
WITH a, b, d, fa, fb
ORDER BY d.kind, a.fact_id, b.fact_id
LIMIT 500
RETURN a.fact_id AS src, b.fact_id AS dst, d.kind AS kind,
       EXISTS { MATCH (fa)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(:Fact)<-[:DEPENDS_ON {kind: 'supersedes'}]-(:Fact) }
         AS src_superseded,
       EXISTS { MATCH (fb)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(:Fact)<-[:DEPENDS_ON {kind: 'supersedes'}]-(:Fact) }
         AS dst_superseded
ORDER BY kind, src, dst
