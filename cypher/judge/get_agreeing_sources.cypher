// For each fact a spec's criteria are anchored to, the other files of its workspace that state the same figure
// in agreement (compare edges, either direction), with the span's locator.
// $spec_id: the spec; $compare: the DEPENDS_ON kind of an agreement.
MATCH (s:TaskSpec {spec_id: $spec_id})-[:HAS_CRITERION]->(:Criterion)-[:ANCHORED_TO]->(fa:Fact)
WITH DISTINCT s, fa
MATCH (fa)-[d:DEPENDS_ON]-(g:Fact)
WHERE d.kind = $compare
MATCH (g)-[:FROM_SPAN]->(sp:Span)<-[:HAS_SPAN]-(:File)<-[c:CONTAINS]-(:Workspace {workspace_id: s.workspace_id})
RETURN DISTINCT fa.fact_id AS fact_id, c.path AS path, sp.locator AS locator
ORDER BY fact_id, path, locator
