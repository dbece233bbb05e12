// Human review: one Review node per (annotation, spec or criterion) verdict, keyed by review_id; specs are
// found by their current verdict when admission and export filter them.
CREATE CONSTRAINT review_review_id_unique IF NOT EXISTS FOR (n:Review) REQUIRE n.review_id IS UNIQUE;
CREATE INDEX task_spec_review_verdict IF NOT EXISTS FOR (n:TaskSpec) ON (n.review_verdict);
