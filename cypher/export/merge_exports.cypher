// Upsert Export nodes keyed by their content-derived export_id; the export time lives only here.
// $rows: list<ExportRow>
UNWIND $rows AS row
MERGE (e:Export {export_id: row.export_id})
  ON CREATE SET e.first_exported_at = datetime()
SET e.kind = row.kind, e.arm = row.arm, e.override = row.override, e.override_note = row.override_note,
    e.audit_id = row.audit_id, e.benchmarks = row.benchmarks, e.rows = row.rows,
    e.excluded_over_length = row.excluded_over_length, e.max_tokens = row.max_tokens,
    e.token_counter = row.token_counter, e.out_dir = row.out_dir, e.manifest = row.manifest,
    e.manifest_sha256 = row.manifest_sha256, e.git_commit = row.git_commit,
    e.last_exported_at = datetime()
RETURN count(*) AS written
