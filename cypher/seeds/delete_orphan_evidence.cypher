// Delete task evidence nodes (seed-area evidence, keyed to a task) that no seed cites any more.
// No parameters.
MATCH (e:Evidence)
WHERE e.task_id IS NOT NULL AND NOT EXISTS { (:Seed)-[:SUPPORTED_BY]->(e) }
DETACH DELETE e
RETURN count(*) AS written
