// After a compile of every family a workspace supports: retire its current specs of a family that compile no
// longer produced (its evidence stopped supporting the family, or a rule now refuses the spec: a checklist
// of a superseded file), and put back any retired spec of a family it produced again. A retired spec keeps
// its trajectories and judgments for audit; exports, revision, review and the split leave it out.
// $workspace_id: string; $families: the families compiled now; $reasons: map family -> why it was not
// $reason: the why for a family with no entry in $reasons
MATCH (s:TaskSpec {workspace_id: $workspace_id})
WHERE s.family IS NOT NULL
  AND NOT EXISTS { MATCH (n:TaskSpec {base_id: s.base_id}) WHERE n.version > s.version }
WITH s, s.family IN $families AS produced
WHERE produced = (s.retired_at IS NOT NULL)
SET s.retired_at = CASE WHEN produced THEN null ELSE datetime() END,
    s.retired_reason = CASE WHEN produced THEN null ELSE coalesce($reasons[s.family], $reason) END
RETURN s.spec_id AS spec_id, produced AS restored, s.retired_reason AS reason
ORDER BY spec_id
