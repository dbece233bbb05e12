// Drop the edges between a workspace's facts, from facts one extractor made, that a rebuild no longer
// produces (a changed linking rule, a file that no longer names another): kept facts keep no stale links.
// $workspace_id: the workspace; $extractor: the extractor label; $keep_keys: 'src|dst|kind' of the edges
// just written.
MATCH (w:Workspace {workspace_id: $workspace_id})-[:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(a:Fact)
WHERE a.extractor = $extractor
MATCH (a)-[d:DEPENDS_ON]->(b:Fact)-[:FROM_SPAN]->(:Span)<-[:HAS_SPAN]-(:File)<-[:CONTAINS]-(w)
WITH DISTINCT d, a.fact_id + '|' + b.fact_id + '|' + d.kind AS key
WHERE NOT key IN $keep_keys
DELETE d
RETURN count(*) AS deleted
