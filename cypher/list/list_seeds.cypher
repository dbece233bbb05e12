// Seeds with their tuple (occupation, sector, task type, pattern, input family); filters optional (null: any).
// $ids: list<string>|null; $selected_only: bool; $soc_code: string|null; $pattern: string|null
MATCH (s:Seed)
WHERE ($ids IS NULL OR s.seed_id IN $ids)
  AND (NOT $selected_only OR s.selection_rank IS NOT NULL)
  AND ($soc_code IS NULL OR s.soc_code = $soc_code)
  AND ($pattern IS NULL OR s.pattern = $pattern)
OPTIONAL MATCH (s)-[:FOR_OCCUPATION]->(o:Occupation)
OPTIONAL MATCH (o)-[:IN_SECTOR]->(sec:Sector)
WITH s, o, sec ORDER BY sec.code
WITH s, o, collect(DISTINCT sec.name) AS sectors
OPTIONAL MATCH (s)-[:OF_TYPE]->(d:DWA)
RETURN s.seed_id AS seed_id, s.selection_rank AS selection_rank, s.soc_code AS soc_code,
       o.title AS occupation, sectors, s.dwa_id AS dwa_id, d.title AS task_type, s.pattern AS pattern,
       s.input_family AS input_family, s.demand AS demand,
       COUNT { (:Workspace)-[:FOR_SEED]->(s) } AS workspaces
ORDER BY coalesce(s.selection_rank, 2147483647), seed_id
