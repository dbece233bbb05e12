// Drop facts of a workspace's spans, made by one extractor, that a rebuild no longer produces.
// $workspace_id: the workspace; $extractor: the extractor label; $keep_ids: the fact ids just written.
MATCH (:Workspace {workspace_id: $workspace_id})-[:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(f:Fact)
WHERE f.extractor = $extractor AND NOT f.fact_id IN $keep_ids
DETACH DELETE f
RETURN count(*) AS deleted
