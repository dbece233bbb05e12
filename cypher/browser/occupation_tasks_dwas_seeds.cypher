// One occupation's tasks -> DWAs (task types) and the seeds built from them, as a graph.
// :param soc_code => '<an O*NET-SOC code>'   (`graphforge browser` fills in one with seeds; e.g. '13-2011.00')
MATCH performs = (o:Occupation {soc_code: $soc_code})-[:PERFORMS]->(t:Task)
OPTIONAL MATCH typed = (t)-[:HAS_TYPE]->(:DWA)
OPTIONAL MATCH seeded = (:Seed)-[:FROM_TASK]->(t)
OPTIONAL MATCH sector = (o)-[:IN_SECTOR]->(:Sector)
RETURN performs, typed, seeded, sector
