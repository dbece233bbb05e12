// The best-ranked selected seed whose pattern and input family fit a workspace case (demo wiring).
// $patterns: list<string> in order of preference, $families: list<string>
MATCH (s:Seed)-[:USES_PATTERN]->(p:ExecutionPattern), (s)-[:EXPECTS_INPUT]->(f:InputFamily)
WHERE s.selection_rank IS NOT NULL AND p.name IN $patterns AND f.name IN $families
WITH s, p, f
ORDER BY size([x IN $patterns WHERE x = p.name]) DESC, s.selection_rank
RETURN s.seed_id AS seed_id, p.name AS pattern, f.name AS family, s.selection_rank AS selection_rank
LIMIT 1
