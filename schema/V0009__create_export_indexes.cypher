// Lookup indexes for exports: exports by kind/arm in Neo4j Browser, RFT candidate pools grouped by spec.
CREATE INDEX export_kind IF NOT EXISTS FOR (n:Export) ON (n.kind);
CREATE INDEX trajectory_spec_id IF NOT EXISTS FOR (n:Trajectory) ON (n.spec_id);
