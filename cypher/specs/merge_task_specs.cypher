// Upsert task specs keyed by spec_id; link each to the workspace it was compiled from and its predecessor.
// $rows: list<TaskSpecRow>
UNWIND $rows AS row
MERGE (s:TaskSpec {spec_id: row.spec_id})
  ON CREATE SET s.created_at = datetime()
SET s.schema_version = row.schema_version, s.base_id = row.base_id, s.version = row.version,
    s.workspace_id = row.workspace_id, s.seed_id = row.seed_id, s.statement = row.statement,
    s.statement_hash = row.statement_hash, s.compiler = row.compiler, s.revised_from = row.revised_from,
    s.family = row.family, s.family_reason = row.family_reason,
    s.workspace_fingerprint = coalesce(row.workspace_fingerprint, s.workspace_fingerprint)
WITH s, row
OPTIONAL MATCH (w:Workspace {workspace_id: row.workspace_id})
FOREACH (_ IN CASE WHEN w IS NULL THEN [] ELSE [1] END | MERGE (s)-[:COMPILED_FROM]->(w))
WITH s, row
OPTIONAL MATCH (p:TaskSpec {spec_id: row.revised_from})
FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | MERGE (s)-[:REVISED_FROM]->(p))
RETURN count(*) AS written
