// Definitions (glossaries, data dictionaries), those that interpret another file's figures first.
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(d:Fact)
WHERE d.kind = 'definition'
OPTIONAL MATCH (d)-[e:DEPENDS_ON {kind: 'interpret'}]->(:Fact)
WITH d, count(e) AS uses
WITH collect({fact_id: d.fact_id, uses: uses}) AS terms
WHERE size(terms) >= 3
UNWIND terms AS row
RETURN row.fact_id AS fact_id, row.uses AS uses
ORDER BY uses DESC, fact_id
LIMIT 400
