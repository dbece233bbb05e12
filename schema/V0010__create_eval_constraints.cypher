// Evaluation: players, their attempts at benchmark tasks, pairwise judgments and Elo ratings per fit.
// Natural keys get uniqueness constraints (and so the range index MERGE needs); lookups by task and player.
CREATE CONSTRAINT player_name_unique IF NOT EXISTS FOR (n:Player) REQUIRE n.name IS UNIQUE;
CREATE CONSTRAINT attempt_attempt_id_unique IF NOT EXISTS FOR (n:Attempt) REQUIRE n.attempt_id IS UNIQUE;
CREATE CONSTRAINT pair_judgment_judgment_id_unique IF NOT EXISTS FOR (n:PairJudgment) REQUIRE n.judgment_id IS UNIQUE;
CREATE CONSTRAINT rating_run_run_id_unique IF NOT EXISTS FOR (n:RatingRun) REQUIRE n.run_id IS UNIQUE;
CREATE CONSTRAINT rating_rating_id_unique IF NOT EXISTS FOR (n:Rating) REQUIRE n.rating_id IS UNIQUE;
CREATE INDEX attempt_task_key IF NOT EXISTS FOR (n:Attempt) ON (n.task_key);
CREATE INDEX pair_judgment_judge IF NOT EXISTS FOR (n:PairJudgment) ON (n.judge);
