// A seed's full context as a graph: occupation, sector, task, DWA -> IWA -> GWA, pattern, input family, evidence.
// :param seed_id => 'put-a-seed-id-here'   (or :param seed_id => null for the top-ranked selected seed)
MATCH (s:Seed)
WHERE s.seed_id = $seed_id OR ($seed_id IS NULL AND s.selection_rank = 1)
MATCH occupation = (s)-[:FOR_OCCUPATION]->(o:Occupation)
OPTIONAL MATCH sector = (o)-[:IN_SECTOR]->(:Sector)
OPTIONAL MATCH task = (s)-[:FROM_TASK]->(:Task)
OPTIONAL MATCH hierarchy = (s)-[:OF_TYPE]->(:DWA)-[:PART_OF]->(:IWA)-[:PART_OF]->(:GWA)
OPTIONAL MATCH pattern = (s)-[:USES_PATTERN]->(:ExecutionPattern)
OPTIONAL MATCH input = (s)-[:EXPECTS_INPUT]->(:InputFamily)
OPTIONAL MATCH evidence = (s)-[:SUPPORTED_BY]->(:Evidence)
OPTIONAL MATCH workspace = (:Workspace)-[:FOR_SEED]->(s)
RETURN s.seed_id AS seed_id, s.demand AS demand, s.selection_rank AS rank,
       occupation, sector, task, hierarchy, pattern, input, evidence, workspace
