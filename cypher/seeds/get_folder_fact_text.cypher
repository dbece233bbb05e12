// The section and statement of a workspace's facts (already extracted), as words about the folder's subject.
// $workspace_id: string; $skip_paths: list<string>; $limit: int (most facts read)
MATCH (:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(f:Fact)
WHERE coalesce(c.role, 'core') <> 'ambient' AND NOT c.path IN $skip_paths
WITH DISTINCT f
ORDER BY f.fact_id
LIMIT $limit
RETURN coalesce(f.section, '') AS section, coalesce(f.statement, '') AS statement
