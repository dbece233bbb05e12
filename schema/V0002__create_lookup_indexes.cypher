// Secondary indexes for the filters the pipeline and the Browser queries use most.
// Full-text over span text lets people search workspace content from Neo4j Browser.
CREATE INDEX task_digital IF NOT EXISTS FOR (n:Task) ON (n.digital);
CREATE INDEX seed_selection_rank IF NOT EXISTS FOR (n:Seed) ON (n.selection_rank);
CREATE INDEX file_format IF NOT EXISTS FOR (n:File) ON (n.format);
CREATE INDEX file_valid IF NOT EXISTS FOR (n:File) ON (n.valid);
CREATE INDEX task_spec_base_id IF NOT EXISTS FOR (n:TaskSpec) ON (n.base_id);
CREATE INDEX criterion_polarity IF NOT EXISTS FOR (n:Criterion) ON (n.polarity);
CREATE INDEX trajectory_status IF NOT EXISTS FOR (n:Trajectory) ON (n.status);
CREATE INDEX judgment_arm IF NOT EXISTS FOR (n:Judgment) ON (n.arm);
CREATE FULLTEXT INDEX span_text_fulltext IF NOT EXISTS FOR (n:Span) ON EACH [n.text];
