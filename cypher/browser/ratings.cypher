// Elo ratings of one stored fit (`graphforge eval elo FILE --anchor NAME=1667 --store`), best first: rank,
// player, Elo with its bootstrap CI, W/L/T, what each player is, and the fit's anchor and resamples.
// :param rating_run_id => '<a RatingRun id>'   (`graphforge browser` fills in the latest; or run
// MATCH (r:RatingRun) RETURN r.run_id, r.source, r.created_at ORDER BY r.created_at DESC)
MATCH (x:Rating)-[:IN_RUN]->(run:RatingRun {run_id: $rating_run_id}), (x)-[:OF_PLAYER]->(p:Player)
RETURN x.rank AS rank, p.name AS player, round(x.elo, 1) AS elo,
       '[' + toString(round(x.ci_low, 1)) + ', ' + toString(round(x.ci_high, 1)) + ']' AS ci,
       toString(x.wins) + '/' + toString(x.losses) + '/' + toString(x.ties) AS wlt,
       p.kind AS kind, p.model AS model, run.anchor + ' = ' + toString(run.anchor_rating) AS anchor,
       toString(round(100 * run.confidence)) + '%' AS ci_level, run.comparisons AS comparisons,
       run.bootstrap AS resamples, run.source AS comparisons_file
ORDER BY rank
