// Upsert the Elo rating of each player in one fit, linked to the fit and to the player.
// $rows: list<RatingRow>
UNWIND $rows AS row
MATCH (r:RatingRun {run_id: row.run_id})
MERGE (p:Player {name: row.player})
MERGE (x:Rating {rating_id: row.rating_id})
SET x.run_id = row.run_id, x.player = row.player, x.rank = row.rank, x.elo = row.elo, x.ci_low = row.ci_low,
    x.ci_high = row.ci_high, x.comparisons = row.comparisons, x.wins = row.wins, x.losses = row.losses,
    x.ties = row.ties
MERGE (x)-[:IN_RUN]->(r)
MERGE (x)-[:OF_PLAYER]->(p)
RETURN count(*) AS written
