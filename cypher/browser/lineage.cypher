// Lineage of a spec: seed -> workspace -> file -> span -> fact -> criterion, one row per anchored fact.
// $spec_id: e.g. "spec-85876ae96719@v1" (Browser: :param spec_id => '...').
MATCH (s:TaskSpec {spec_id: $spec_id})-[:COMPILED_FROM]->(w:Workspace)
OPTIONAL MATCH (w)-[:FOR_SEED]->(seed:Seed)
MATCH (s)-[:HAS_CRITERION]->(c:Criterion)-[:ANCHORED_TO]->(f:Fact)-[:FROM_SPAN]->(sp:Span)<-[:HAS_SPAN]-(file:File)<-[cont:CONTAINS]-(w)
RETURN seed.seed_id AS seed_id, w.workspace_id AS workspace_id, cont.path AS path, file.sha256 AS sha256,
       sp.locator AS locator, f.fact_id AS fact_id, f.value AS value, c.criterion_id AS criterion_id,
       c.polarity AS polarity
ORDER BY criterion_id, path, locator
