// Upsert parsed files with their spans and CONTAINS link, one transaction per batch; ingested=true last.
// $rows: list<WorkspaceFileRow> (FileIngestRow fields + link: ContainsRow)
UNWIND $rows AS row
MERGE (f:File {sha256: row.sha256})
SET f.size = row.size, f.format = row.format, f.valid = row.valid, f.invalid_reason = row.invalid_reason,
    f.parser = row.parser, f.span_count = row.span_count, f.page_count = row.page_count,
    f.warnings = row.warnings, f.dropped_chars = row.dropped_chars, f.dropped_rows = row.dropped_rows,
    f.width = row.width, f.height = row.height, f.formulas_json = row.formulas_json
WITH f, row
CALL (f, row) {
  UNWIND row.spans AS s
  MERGE (sp:Span {span_id: s.span_id})
  SET sp.file_sha256 = s.file_sha256, sp.locator = s.locator, sp.kind = s.kind, sp.ordinal = s.ordinal,
      sp.text = s.text, sp.formulas_json = s.formulas_json
  MERGE (f)-[:HAS_SPAN]->(sp)
  RETURN count(sp) AS spans
}
// The link rides in the same transaction (one commit per batch, not two); a unit subquery keeps the row.
CALL (f, row) {
  MATCH (w:Workspace {workspace_id: row.link.workspace_id})
  MERGE (w)-[c:CONTAINS {path: row.link.path}]->(f)
  SET c.role = row.link.role, c.role_source = row.link.role_source, c.source_url = row.link.source_url,
      c.license = row.link.license, c.duplicate_paths = row.link.duplicate_paths
  // A readable name (Browser's caption): the base name of a path it is held under, the alphabetically
  // first of them, so it does not depend on which workspace was loaded first.
  WITH f
  MATCH (:Workspace)-[held:CONTAINS]->(f)
  WITH f, min(last(split(held.path, '/'))) AS name
  SET f.name = name
}
// Set last: a file whose transaction never committed has no flag and is parsed again on the next run.
SET f.ingested = true
RETURN count(*) AS written
