// Completed attempts at a benchmark's tasks, with what the judge reads.
// $benchmark: string, $players: list<string> | null (null: every player with attempts)
MATCH (:Benchmark {name: $benchmark})-[:HAS_TASK]->(t:BenchmarkTask)<-[:ON_TASK]-(a:Attempt)
WHERE a.status = 'completed' AND ($players IS NULL OR a.player IN $players)
RETURN t.task_key AS task_key, t.task_id AS task_id, t.prompt AS prompt, t.occupation AS occupation,
       t.sector AS sector, a.attempt_id AS attempt_id, a.player AS player, a.content_hash AS content_hash,
       a.rendered AS rendered, a.has_output AS has_output
ORDER BY t.task_id, a.player
