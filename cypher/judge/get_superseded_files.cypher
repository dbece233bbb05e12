// The files of a spec's workspace that a later version in the same workspace supersedes, with that version.
// $spec_id: the spec; $supersedes: the DEPENDS_ON kind of a later version (newer head fact -> older one).
MATCH (s:TaskSpec {spec_id: $spec_id})
MATCH (w:Workspace {workspace_id: s.workspace_id})
MATCH (newer:Fact)-[d:DEPENDS_ON]->(older:Fact)
WHERE d.kind = $supersedes
MATCH (older)-[:FROM_SPAN]->(:Span)<-[:HAS_SPAN]-(:File)<-[oc:CONTAINS]-(w)
MATCH (newer)-[:FROM_SPAN]->(:Span)<-[:HAS_SPAN]-(:File)<-[nc:CONTAINS]-(w)
RETURN DISTINCT oc.path AS path, nc.path AS newer
ORDER BY path, newer
