// Files with every property and their spans' properties, in span_id order (graph comparison).
// $shas: list<string>
UNWIND $shas AS sha
MATCH (f:File {sha256: sha})
OPTIONAL MATCH (f)-[:HAS_SPAN]->(s:Span)
WITH f, s ORDER BY s.span_id
RETURN f.sha256 AS sha256, properties(f) AS file, collect(properties(s)) AS spans
