// Upsert one Elo fit: its comparisons (file and sha256), anchor and bootstrap settings.
// $rows: list<RatingRunRow>
UNWIND $rows AS row
MERGE (r:RatingRun {run_id: row.run_id})
  ON CREATE SET r.created_at = datetime()
SET r.source = row.source, r.source_sha256 = row.source_sha256, r.anchor = row.anchor,
    r.anchor_rating = row.anchor_rating, r.comparisons = row.comparisons, r.players = row.players,
    r.tasks = row.tasks, r.bootstrap = row.bootstrap, r.seed = row.seed, r.confidence = row.confidence,
    r.ridge = row.ridge, r.elo_json = row.elo_json
RETURN count(*) AS written
