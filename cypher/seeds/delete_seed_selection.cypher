// Forget a previous selection: remove rank, gain and run from every seed.
// No parameters.
MATCH (s:Seed) WHERE s.selection_rank IS NOT NULL
REMOVE s.selection_rank, s.greedy_rank, s.selection_gain, s.selection_run
RETURN count(*) AS written
