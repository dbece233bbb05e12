// Elo ratings of the latest stored fit (`graphforge eval elo FILE --anchor NAME=1667 --store`): rank,
// player, Elo with its bootstrap CI, W/L/T, and what each player is. Run as is (no parameters).
MATCH (run:RatingRun)
WITH run ORDER BY run.created_at DESC LIMIT 1
MATCH (x:Rating)-[:IN_RUN]->(run), (x)-[:OF_PLAYER]->(p:Player)
RETURN x.rank AS rank, p.name AS player, round(x.elo, 1) AS elo,
       '[' + toString(round(x.ci_low, 1)) + ', ' + toString(round(x.ci_high, 1)) + ']' AS ci,
       toString(x.wins) + '/' + toString(x.losses) + '/' + toString(x.ties) AS wlt,
       p.kind AS kind, p.model AS model, run.anchor + ' = ' + toString(run.anchor_rating) AS anchor,
       run.comparisons AS comparisons, run.bootstrap AS resamples
ORDER BY rank
