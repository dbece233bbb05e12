// Remove sectors no occupation points at any more (left over after a sector scheme was replaced).
// No parameters.
MATCH (s:Sector)
WHERE NOT EXISTS { (:Occupation)-[:IN_SECTOR|IN_SUB_SECTOR]->(s) }
DETACH DELETE s
RETURN count(*) AS written
