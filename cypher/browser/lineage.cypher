// Lineage of a spec as a graph: seed <- workspace -> file -> span <- fact <- criterion <- spec.
// :param spec_id => '<a spec id>'   (`graphforge browser` fills in a real one; `graphforge list specs`)
MATCH compiled = (s:TaskSpec {spec_id: $spec_id})-[:COMPILED_FROM]->(w:Workspace)
OPTIONAL MATCH seed = (w)-[:FOR_SEED]->(:Seed)
OPTIONAL MATCH anchored = (s)-[:HAS_CRITERION]->(:Criterion)-[:ANCHORED_TO]->(:Fact)-[:FROM_SPAN]->(:Span)
                          <-[:HAS_SPAN]-(file:File)<-[:CONTAINS]-(w)
OPTIONAL MATCH revised = (s)-[:REVISED_FROM*1..]->(:TaskSpec)
RETURN compiled, seed, anchored, revised
