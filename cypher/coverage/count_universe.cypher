// What the graph holds beyond the seeds: occupations, DIGITAL tasks, task types and vocabulary sizes.
// No parameters.
CALL () { MATCH (o:Occupation) RETURN count(o) AS occupations }
CALL () { MATCH (t:Task {digital: true}) RETURN count(t) AS digital_tasks }
CALL () { MATCH (d:DWA) RETURN count(d) AS task_types }
CALL () { MATCH (p:ExecutionPattern) RETURN count(p) AS patterns }
CALL () { MATCH (f:InputFamily) RETURN count(f) AS input_families }
CALL () { MATCH (sec:Sector) WHERE EXISTS { (:Occupation)-[:IN_SECTOR]->(sec) } RETURN count(sec) AS sectors }
RETURN occupations, digital_tasks, task_types, patterns, input_families, sectors
