// The on-disk root of the workspace a spec was compiled from (where the agent's files come from).
// $spec_id: the spec.
MATCH (s:TaskSpec {spec_id: $spec_id})
MATCH (w:Workspace {workspace_id: s.workspace_id})
RETURN w.workspace_id AS workspace_id, w.root AS root
