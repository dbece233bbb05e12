// Facts by id with their span, file path and hidden role: what a task family builds its spec from.
// $workspace_id: the workspace; $fact_ids: the facts its pattern returned.
MATCH (w:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(file:File)-[:HAS_SPAN]->(sp:Span)<-[:FROM_SPAN]-(f:Fact)
WHERE f.fact_id IN $fact_ids
WITH f, sp, file, c ORDER BY c.path
WITH f, sp, file, collect(c)[0] AS c
RETURN f.fact_id AS fact_id, f.statement AS statement, f.value AS value, f.value_num AS value_num,
       f.unit AS unit, coalesce(f.scale, 1.0) AS scale, f.metric AS metric, f.entity AS entity,
       f.period AS period, f.extractor AS extractor,
       coalesce(f.kind, 'quantity') AS kind, f.normalized AS normalized, coalesce(f.section, '') AS section,
       sp.span_id AS span_id, sp.locator AS locator,
       sp.ordinal AS ordinal, sp.text AS span_text, c.path AS path, c.role AS role, file.format AS format
ORDER BY path, ordinal, fact_id
