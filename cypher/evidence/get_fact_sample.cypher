// A workspace's facts with their file and span, for quality sampling (precision against labels).
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(file:File)-[:HAS_SPAN]->(sp:Span)<-[:FROM_SPAN]-(f:Fact)
WITH f, sp, file, min(c.path) AS path
RETURN f.fact_id AS fact_id, coalesce(f.kind, 'quantity') AS kind, f.value AS value, f.statement AS statement,
       f.value_num AS value_num, f.metric AS metric, f.entity AS entity, f.period AS period,
       file.sha256 AS sha256, sp.locator AS locator, path, sp.text AS span_text
ORDER BY fact_id
