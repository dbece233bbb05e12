// n_d(v): how many selected seeds carry each value on each coverage dimension (the greedy's counts).
// No parameters.
MATCH (s:Seed) WHERE s.selection_rank IS NOT NULL
MATCH (s)-[:FOR_OCCUPATION]->(o:Occupation)
MATCH (s)-[:OF_TYPE]->(d:DWA)
MATCH (s)-[:USES_PATTERN]->(p:ExecutionPattern)
MATCH (s)-[:EXPECTS_INPUT]->(f:InputFamily)
UNWIND [['occupation', o.soc_code], ['task_type', d.dwa_id], ['pattern', p.name],
        ['input_family', f.name]] AS pair
RETURN pair[0] AS dimension, pair[1] AS value, count(*) AS seeds
ORDER BY dimension, value
