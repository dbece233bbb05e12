// Task specs with their workspace, seed and counts; every filter is optional (null: any).
// $ids: list<string>|null; $workspace_id: string|null; $seed_id: string|null; $current_only: bool
MATCH (s:TaskSpec)
WHERE ($ids IS NULL OR s.spec_id IN $ids)
  AND ($workspace_id IS NULL OR s.workspace_id = $workspace_id)
  AND ($seed_id IS NULL OR s.seed_id = $seed_id)
// Current: no revision supersedes it, no newer version of its base exists (one current spec per base) and
// it is not retired (a compile of every family its workspace supports no longer produced it).
WITH s, NOT EXISTS { (:TaskSpec)-[:REVISED_FROM]->(s) }
        AND NOT EXISTS { MATCH (n:TaskSpec {base_id: s.base_id}) WHERE n.version > s.version }
        AND s.retired_at IS NULL AS current
WHERE current OR NOT $current_only
RETURN s.spec_id AS spec_id, s.version AS version, current, s.workspace_id AS workspace_id,
       s.seed_id AS seed_id, s.compiler AS compiler,
       COUNT { (s)-[:HAS_CRITERION]->(:Criterion) } AS criteria,
       COUNT { (s)-[:REQUIRES]->(:Deliverable) } AS deliverables,
       COUNT { (:Trajectory)-[:ATTEMPTS]->(s) } AS trajectories,
       COUNT { (:Trajectory {status: 'admitted'})-[:ATTEMPTS]->(s) } AS admitted
ORDER BY spec_id
