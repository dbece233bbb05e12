// A criterion's anchor chain as a graph: spec -> criterion -> fact -> span <- file <- workspace.
// :param criterion_id => '<a criterion id>'   (`graphforge browser` fills in a real one; or run
// MATCH (c:Criterion)-[:ANCHORED_TO]->() RETURN DISTINCT c.criterion_id LIMIT 20)
MATCH chain = (s:TaskSpec)-[:HAS_CRITERION]->(c:Criterion {criterion_id: $criterion_id})
              -[:ANCHORED_TO]->(f:Fact)-[:FROM_SPAN]->(sp:Span)<-[:HAS_SPAN]-(file:File)
OPTIONAL MATCH held = (w:Workspace)-[:CONTAINS]->(file) WHERE w.workspace_id = s.workspace_id
OPTIONAL MATCH target = (c)-[:TARGETS]->(:Deliverable)
RETURN chain, held, target
