// Link a workspace to its files with the per-workspace name, hidden role and provenance on CONTAINS.
// $rows: list<ContainsRow>
UNWIND $rows AS row
MATCH (w:Workspace {workspace_id: row.workspace_id})
MATCH (f:File {sha256: row.sha256})
MERGE (w)-[c:CONTAINS {path: row.path}]->(f)
SET c.role = row.role, c.role_source = row.role_source, c.source_url = row.source_url, c.license = row.license,
    c.duplicate_paths = row.duplicate_paths
// A readable name (Browser's caption): the alphabetically first base name of the paths it is held under.
WITH f
CALL (f) {
  MATCH (:Workspace)-[held:CONTAINS]->(f)
  WITH min(last(split(held.path, '/'))) AS name
  SET f.name = name
}
RETURN count(*) AS written
