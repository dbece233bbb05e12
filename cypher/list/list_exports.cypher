// Export nodes: kind, arm, rows, audit and override, where they were written; filters optional (null: any).
// $ids: list<string>|null; $kind: string|null
MATCH (e:Export)
WHERE ($ids IS NULL OR e.export_id IN $ids)
  AND ($kind IS NULL OR e.kind = $kind)
RETURN e.export_id AS export_id, e.kind AS kind, e.arm AS arm, e.rows AS rows, e.audit_id AS audit_id,
       e.override AS override, e.out_dir AS out_dir, toString(e.last_exported_at) AS last_exported_at,
       COUNT { (e)-[:INCLUDES]->(:Trajectory) } AS trajectories
ORDER BY export_id
