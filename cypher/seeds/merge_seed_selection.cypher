// Store the selection on each chosen seed: final rank, greedy rank, gain when picked, run id.
// $rows: list<SelectionRow>
UNWIND $rows AS row
MATCH (s:Seed {seed_id: row.seed_id})
SET s.selection_rank = row.selection_rank, s.greedy_rank = row.greedy_rank,
    s.selection_gain = row.selection_gain, s.selection_run = row.selection_run
RETURN count(*) AS written
