// Record the deterministic spec checks, the revision decision and any fallback on each TaskSpec.
// $rows: list<{spec_id, checks_ok, check_problems, revision, revision_fallback}>
UNWIND $rows AS row
MATCH (s:TaskSpec {spec_id: row.spec_id})
SET s.checks_ok = row.checks_ok, s.check_problems = row.check_problems, s.revision = row.revision,
    s.revision_fallback = row.revision_fallback, s.checked_at = datetime()
RETURN count(*) AS written
