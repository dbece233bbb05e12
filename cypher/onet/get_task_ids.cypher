// Every task id with its statement and current DIGITAL flag (for labelling and classification).
// No parameters.
MATCH (o:Occupation)-[:PERFORMS]->(t:Task)
RETURN t.task_id AS task_id, t.statement AS statement, o.title AS occupation_title, t.digital AS digital
ORDER BY t.task_id
