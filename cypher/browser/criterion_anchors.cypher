// A criterion's anchors down to the file and span: criterion -> fact -> span <- file, with path and role.
// $criterion_id: e.g. "spec-85876ae96719@v1/c1" (Browser: :param criterion_id => '...').
MATCH (s:TaskSpec)-[:HAS_CRITERION]->(c:Criterion {criterion_id: $criterion_id})-[:ANCHORED_TO]->(f:Fact)-[:FROM_SPAN]->(sp:Span)<-[:HAS_SPAN]-(file:File)
OPTIONAL MATCH (w:Workspace {workspace_id: s.workspace_id})-[cont:CONTAINS]->(file)
RETURN c.criterion_id AS criterion_id, c.requirement AS requirement, f.fact_id AS fact_id, f.value AS value,
       f.statement AS statement, sp.locator AS locator, sp.text AS span_text, cont.path AS path,
       cont.role AS role, file.sha256 AS sha256
ORDER BY path, locator
