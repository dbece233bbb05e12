// How many Seed nodes have this id (0 or 1): tells whether a workspace could be linked to its seed.
// $seed_id: string
MATCH (s:Seed {seed_id: $seed_id})
RETURN count(s) AS seeds
