// Coverage gaps: sector x execution-pattern cells with no selected seed, and how many candidates could fill each.
// Run in Neo4j Browser as is (no parameters). Cells with pool_candidates = 0 need new seeds or data.
MATCH (sec:Sector) WHERE EXISTS { (:Occupation)-[:IN_SECTOR]->(sec) }
MATCH (p:ExecutionPattern)
OPTIONAL MATCH (s:Seed)-[:USES_PATTERN]->(p)
  WHERE EXISTS { (s)-[:FOR_OCCUPATION]->(:Occupation)-[:IN_SECTOR]->(sec) }
WITH sec, p, count(s) AS pool_candidates,
     count(CASE WHEN s.selection_rank IS NOT NULL THEN 1 END) AS selected
WHERE selected = 0
RETURN sec.name AS sector, p.name AS pattern, pool_candidates
ORDER BY pool_candidates DESC, sector, pattern
