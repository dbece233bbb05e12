// Stages 3-4: workspaces, files (invalid apart), spans, facts, fact links; workspaces waiting for facts or specs.
// $valid: bool (the File.valid value of a parsed file; any other value counts as invalid)
CALL { MATCH (w:Workspace) RETURN count(w) AS workspaces }
CALL {
  MATCH (f:File) WHERE EXISTS { (:Workspace)-[:CONTAINS]->(f) }
  RETURN count(f) AS files, count(CASE WHEN f.valid <> $valid THEN 1 END) AS invalid_files
}
CALL {
  MATCH (s:Span) WHERE EXISTS { (:Workspace)-[:CONTAINS]->(:File)-[:HAS_SPAN]->(s) }
  RETURN count(s) AS spans
}
CALL { MATCH (f:Fact) RETURN count(f) AS facts }
CALL { MATCH (:Fact)-[d:DEPENDS_ON]->(:Fact) RETURN count(d) AS fact_links }
CALL {
  MATCH (w:Workspace)
  WITH w, EXISTS { (w)-[:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span) } AS has_spans,
       EXISTS { (w)-[:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(:Fact) } AS has_facts,
       EXISTS { (:TaskSpec)-[:COMPILED_FROM]->(w) } AS has_specs
  RETURN count(CASE WHEN has_spans AND NOT has_facts THEN 1 END) AS workspaces_without_facts,
         count(CASE WHEN has_facts AND NOT has_specs THEN 1 END) AS workspaces_without_specs
}
RETURN workspaces, files, invalid_files, spans, facts, fact_links, workspaces_without_facts,
       workspaces_without_specs
