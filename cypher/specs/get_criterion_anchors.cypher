// Every anchor of a spec's criteria down to its span and file, in the criterion's anchor order (position).
// $spec_id: the spec.
MATCH (s:TaskSpec {spec_id: $spec_id})-[:HAS_CRITERION]->(c:Criterion)-[:ANCHORED_TO]->(fa:Fact)-[:FROM_SPAN]->(sp:Span)
MATCH (file:File)-[:HAS_SPAN]->(sp)
OPTIONAL MATCH (w:Workspace {workspace_id: s.workspace_id})-[cont:CONTAINS]->(file)
WITH c, fa, sp, file, cont, [i IN range(0, size(c.anchors) - 1) WHERE c.anchors[i] = fa.fact_id][0] AS position
RETURN c.criterion_id AS criterion_id, position, fa.fact_id AS fact_id, fa.statement AS statement, fa.value AS value,
       fa.value_num AS value_num, fa.unit AS unit, fa.metric AS metric, fa.period AS period,
       sp.span_id AS span_id, sp.locator AS locator, sp.text AS span_text, file.sha256 AS sha256,
       cont.path AS path, cont.role AS role
ORDER BY c.ordinal, position
