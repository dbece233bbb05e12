// DEPENDS_ON edges whose two facts both sit in files of the workspace.
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(a:Fact)
WITH w, collect(DISTINCT a) AS facts
UNWIND facts AS a
MATCH (a)-[d:DEPENDS_ON]->(b:Fact)
WHERE b IN facts
RETURN a.fact_id AS src_fact_id, b.fact_id AS dst_fact_id, d.kind AS kind, coalesce(d.note, '') AS note
ORDER BY kind, src_fact_id, dst_fact_id
