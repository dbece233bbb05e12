// Documents with a title and dates: the fields of a record to fill in from the sources. The dates are the
// file's first ones in document order (span order here; the family orders a span's dates by position).
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(f:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(m:Fact)
WHERE m.kind = 'metadata' AND m.entity = 'title' AND coalesce(c.role, 'core') IN ['core', 'supporting']
OPTIONAL MATCH (f)-[:HAS_SPAN]->(s:Span)<-[:FROM_SPAN]-(d:Fact {kind: 'date'})
WITH f, m, s, d ORDER BY s.ordinal, d.fact_id
WITH f, m, collect(d.fact_id)[..20] AS dates
WITH collect({title: m.fact_id, dates: dates}) AS docs
WHERE size(docs) >= 2
UNWIND docs AS row
RETURN row.title AS title, row.dates AS dates
ORDER BY size(dates) DESC, title
LIMIT 40
