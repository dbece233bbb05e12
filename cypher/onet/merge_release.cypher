// Upsert the O*NET release record (one node per release id) with its row counts and sector scheme.
// $rows: list<ReleaseRow>
UNWIND $rows AS row
MERGE (r:OnetRelease {release_id: row.release_id})
SET r.source_path = row.source_path, r.source_format = row.source_format, r.content_hash = row.content_hash,
    r.occupations = row.occupations, r.tasks = row.tasks, r.dwas = row.dwas, r.iwas = row.iwas,
    r.gwas = row.gwas, r.task_dwa_links = row.task_dwa_links, r.sector_scheme = row.sector_scheme
RETURN count(*) AS written
