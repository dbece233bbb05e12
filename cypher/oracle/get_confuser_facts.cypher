// Facts from the confuser files of a spec's workspace (the oracle's "use the confuser figure" injection).
// $spec_id: the spec whose workspace is searched.
MATCH (s:TaskSpec {spec_id: $spec_id})
MATCH (w:Workspace {workspace_id: s.workspace_id})-[cont:CONTAINS {role: 'confuser'}]->(file:File)
MATCH (file)-[:HAS_SPAN]->(sp:Span)<-[:FROM_SPAN]-(fa:Fact)
RETURN fa.fact_id AS fact_id, fa.statement AS statement, fa.value AS value, fa.value_num AS value_num,
       fa.unit AS unit, coalesce(fa.scale, 1.0) AS scale, fa.metric AS metric, fa.period AS period,
       sp.span_id AS span_id, sp.locator AS locator, sp.text AS span_text, file.sha256 AS sha256,
       cont.path AS path, cont.role AS role
ORDER BY fa.value_num IS NULL, fa.fact_id
