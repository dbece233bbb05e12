// Quantities in trusted files that name what they measure; those other files confirm come first.
// Every candidate is counted before the cut (an unordered LIMIT before the ORDER BY let a large workspace,
// over 5,000 quantities, compile different figures in two fresh graphs of the same files).
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(q:Fact)
WHERE q.kind = 'quantity' AND q.value_num IS NOT NULL AND q.metric IS NOT NULL
  AND (q.unit IS NOT NULL OR q.period IS NOT NULL) AND coalesce(c.role, 'core') IN ['core', 'supporting']
WITH DISTINCT q
WITH q.fact_id AS fact_id,
     COUNT { (q)-[e:DEPENDS_ON]-(:Fact) WHERE e.kind IN ['compare', 'interpret', 'reference'] } AS support
ORDER BY support DESC, fact_id LIMIT 400
WITH collect({fact_id: fact_id, support: support}) AS figures
WHERE size(figures) >= 3
UNWIND figures AS row
RETURN row.fact_id AS fact_id, row.support AS support
