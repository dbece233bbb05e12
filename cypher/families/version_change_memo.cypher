// Two versions of one document (a supersedes edge) and the items they state differently.
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[:CONTAINS]->(fn:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(n:Fact)
MATCH (n)-[:DEPENDS_ON {kind: 'supersedes'}]->(o:Fact)-[:FROM_SPAN]->(:Span)<-[:HAS_SPAN]-(fo:File)<-[:CONTAINS]-(w)
MATCH (fn)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(x:Fact)-[r:DEPENDS_ON {kind: 'reconcile'}]-(y:Fact)
      -[:FROM_SPAN]->(:Span)<-[:HAS_SPAN]-(fo)
WITH n, o, x, y ORDER BY x.fact_id, y.fact_id
RETURN n.fact_id AS newer, o.fact_id AS older, collect(DISTINCT [x.fact_id, y.fact_id])[..12] AS changes
ORDER BY newer, older
