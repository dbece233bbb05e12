// Record the deterministic spec checks (and the revision decision) on each TaskSpec.
// $rows: list<{spec_id, checks_ok, check_problems, revision}>
UNWIND $rows AS row
MATCH (s:TaskSpec {spec_id: row.spec_id})
SET s.checks_ok = row.checks_ok, s.check_problems = row.check_problems, s.revision = row.revision,
    s.checked_at = datetime()
RETURN count(*) AS written
