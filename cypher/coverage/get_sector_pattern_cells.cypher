// Seeds per (sector, execution pattern) cell, for the selected seeds or the whole candidate pool.
// $selected_only: boolean
MATCH (s:Seed) WHERE NOT $selected_only OR s.selection_rank IS NOT NULL
MATCH (s)-[:FOR_OCCUPATION]->(:Occupation)-[:IN_SECTOR]->(sec:Sector)
MATCH (s)-[:USES_PATTERN]->(p:ExecutionPattern)
RETURN sec.code AS sector_code, p.name AS pattern, count(DISTINCT s) AS seeds
ORDER BY sector_code, pattern
