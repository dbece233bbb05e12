// Lookups the evidence builder, the spec compiler and the Browser queries use.
// Facts are matched across files by metric and period; criteria and deliverables are read per spec.
CREATE INDEX fact_metric_period IF NOT EXISTS FOR (n:Fact) ON (n.metric, n.period);
CREATE INDEX fact_extractor IF NOT EXISTS FOR (n:Fact) ON (n.extractor);
CREATE INDEX criterion_spec_id IF NOT EXISTS FOR (n:Criterion) ON (n.spec_id);
CREATE INDEX deliverable_spec_id IF NOT EXISTS FOR (n:Deliverable) ON (n.spec_id);
