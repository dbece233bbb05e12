// Delete a workspace with its files and spans, keeping any file another workspace also contains.
// $workspace_id: string
MATCH (w:Workspace {workspace_id: $workspace_id})
OPTIONAL MATCH (w)-[:CONTAINS]->(f:File)
WHERE NOT EXISTS { MATCH (other:Workspace)-[:CONTAINS]->(f) WHERE other <> w }
OPTIONAL MATCH (f)-[:HAS_SPAN]->(s:Span)
DETACH DELETE s, f, w
RETURN count(*) AS written
