// Uniqueness constraints for the natural key of every label in the graph model (DESIGN.md).
// Each constraint also gives the range index MERGE needs on that key.
CREATE CONSTRAINT onet_release_release_id_unique IF NOT EXISTS FOR (n:OnetRelease) REQUIRE n.release_id IS UNIQUE;
CREATE CONSTRAINT sector_code_unique IF NOT EXISTS FOR (n:Sector) REQUIRE n.code IS UNIQUE;
CREATE CONSTRAINT occupation_soc_code_unique IF NOT EXISTS FOR (n:Occupation) REQUIRE n.soc_code IS UNIQUE;
CREATE CONSTRAINT task_task_id_unique IF NOT EXISTS FOR (n:Task) REQUIRE n.task_id IS UNIQUE;
CREATE CONSTRAINT dwa_dwa_id_unique IF NOT EXISTS FOR (n:DWA) REQUIRE n.dwa_id IS UNIQUE;
CREATE CONSTRAINT iwa_iwa_id_unique IF NOT EXISTS FOR (n:IWA) REQUIRE n.iwa_id IS UNIQUE;
CREATE CONSTRAINT gwa_element_id_unique IF NOT EXISTS FOR (n:GWA) REQUIRE n.element_id IS UNIQUE;
CREATE CONSTRAINT execution_pattern_name_unique IF NOT EXISTS FOR (n:ExecutionPattern) REQUIRE n.name IS UNIQUE;
CREATE CONSTRAINT input_family_name_unique IF NOT EXISTS FOR (n:InputFamily) REQUIRE n.name IS UNIQUE;
CREATE CONSTRAINT seed_seed_id_unique IF NOT EXISTS FOR (n:Seed) REQUIRE n.seed_id IS UNIQUE;
CREATE CONSTRAINT evidence_evidence_id_unique IF NOT EXISTS FOR (n:Evidence) REQUIRE n.evidence_id IS UNIQUE;
CREATE CONSTRAINT workspace_workspace_id_unique IF NOT EXISTS FOR (n:Workspace) REQUIRE n.workspace_id IS UNIQUE;
CREATE CONSTRAINT file_sha256_unique IF NOT EXISTS FOR (n:File) REQUIRE n.sha256 IS UNIQUE;
CREATE CONSTRAINT span_span_id_unique IF NOT EXISTS FOR (n:Span) REQUIRE n.span_id IS UNIQUE;
CREATE CONSTRAINT fact_fact_id_unique IF NOT EXISTS FOR (n:Fact) REQUIRE n.fact_id IS UNIQUE;
CREATE CONSTRAINT task_spec_spec_id_unique IF NOT EXISTS FOR (n:TaskSpec) REQUIRE n.spec_id IS UNIQUE;
CREATE CONSTRAINT deliverable_deliverable_id_unique IF NOT EXISTS FOR (n:Deliverable) REQUIRE n.deliverable_id IS UNIQUE;
CREATE CONSTRAINT criterion_criterion_id_unique IF NOT EXISTS FOR (n:Criterion) REQUIRE n.criterion_id IS UNIQUE;
CREATE CONSTRAINT trajectory_trajectory_id_unique IF NOT EXISTS FOR (n:Trajectory) REQUIRE n.trajectory_id IS UNIQUE;
CREATE CONSTRAINT judgment_judgment_id_unique IF NOT EXISTS FOR (n:Judgment) REQUIRE n.judgment_id IS UNIQUE;
CREATE CONSTRAINT benchmark_task_task_key_unique IF NOT EXISTS FOR (n:BenchmarkTask) REQUIRE n.task_key IS UNIQUE;
CREATE CONSTRAINT benchmark_file_sha256_unique IF NOT EXISTS FOR (n:BenchmarkFile) REQUIRE n.sha256 IS UNIQUE;
CREATE CONSTRAINT audit_audit_id_unique IF NOT EXISTS FOR (n:Audit) REQUIRE n.audit_id IS UNIQUE;
CREATE CONSTRAINT export_export_id_unique IF NOT EXISTS FOR (n:Export) REQUIRE n.export_id IS UNIQUE;
