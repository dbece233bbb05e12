// Benchmarks are named collections of BenchmarkTask nodes; audits are found by when they completed.
CREATE CONSTRAINT benchmark_name_unique IF NOT EXISTS FOR (n:Benchmark) REQUIRE n.name IS UNIQUE;
CREATE INDEX benchmark_task_benchmark IF NOT EXISTS FOR (n:BenchmarkTask) ON (n.benchmark);
CREATE INDEX audit_completed_at IF NOT EXISTS FOR (n:Audit) ON (n.completed_at);
