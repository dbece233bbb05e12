// Workspaces with their seed and file, span, fact and spec counts; filters optional (null: any).
// $ids: list<string>|null; $seed_id: string|null
MATCH (w:Workspace)
WHERE ($ids IS NULL OR w.workspace_id IN $ids)
  AND ($seed_id IS NULL OR w.seed_id = $seed_id)
RETURN w.workspace_id AS workspace_id, w.name AS name, w.root AS root, w.seed_id AS seed_id,
       COUNT { (w)-[:CONTAINS]->(:File) } AS files,
       COUNT { (w)-[:CONTAINS]->(f:File) WHERE f.valid = false } AS invalid_files,
       COUNT { (w)-[:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span) } AS spans,
       COUNT { (w)-[:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(:Fact) } AS facts,
       COUNT { (:TaskSpec)-[:COMPILED_FROM]->(w) } AS specs
ORDER BY workspace_id
