// The heatmap axes: every top-level sector that has occupations, and every execution pattern.
// No parameters.
CALL () {
  MATCH (sec:Sector) WHERE EXISTS { (:Occupation)-[:IN_SECTOR]->(sec) }
  RETURN 'sector' AS axis, sec.code AS key, sec.name AS name, 0 AS ordinal
  UNION ALL
  MATCH (p:ExecutionPattern)
  RETURN 'pattern' AS axis, p.name AS key, p.name AS name, coalesce(p.ordinal, 0) AS ordinal
}
RETURN axis, key, name, ordinal
ORDER BY axis, ordinal, key
