// Seeds per value of the pattern and input-family dimensions (selected seeds or the whole pool).
// $selected_only: boolean
MATCH (s:Seed) WHERE NOT $selected_only OR s.selection_rank IS NOT NULL
MATCH (s)-[:USES_PATTERN]->(p:ExecutionPattern)
MATCH (s)-[:EXPECTS_INPUT]->(f:InputFamily)
UNWIND [['pattern', p.name], ['input_family', f.name]] AS pair
RETURN pair[0] AS dimension, pair[1] AS value, count(DISTINCT s) AS seeds
ORDER BY dimension, seeds DESC, value
