// Facts of the given files that another file of the workspace states too, with that file's fact: the same
// value (compare) or a different one (reconcile), and whether the other file is current or one to avoid (a
// later version supersedes it, or its hidden role is confuser). A spec asks for both current files, or
// warns against the file to avoid.
// $workspace_id: the workspace; $paths: the files the spec's items come from (null: any current file of the
// workspace); $kinds: fact kinds wanted (null: any kind).
MATCH (w:Workspace {workspace_id: $workspace_id})-[ca:CONTAINS]->(fa:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(a:Fact)
WHERE ($paths IS NULL OR ca.path IN $paths) AND ($kinds IS NULL OR coalesce(a.kind, 'quantity') IN $kinds)
  AND ($paths IS NOT NULL OR (coalesce(ca.role, 'core') IN ['core', 'supporting'] AND NOT EXISTS {
       MATCH (fa)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(:Fact)<-[:DEPENDS_ON {kind: 'supersedes'}]-(:Fact)
     }))
MATCH (a)-[d:DEPENDS_ON]-(b:Fact)-[:FROM_SPAN]->(:Span)<-[:HAS_SPAN]-(fb:File)<-[cb:CONTAINS]-(w)
WHERE d.kind IN ['compare', 'reconcile'] AND fa.sha256 <> fb.sha256
WITH DISTINCT a, b, d.kind AS kind, fb, cb,
     coalesce(cb.role, 'core') = 'confuser' OR EXISTS {
       MATCH (fb)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(:Fact)<-[:DEPENDS_ON {kind: 'supersedes'}]-(:Fact)
     } AS avoid
RETURN a.fact_id AS anchor, b.fact_id AS other, kind, avoid
ORDER BY anchor, other
LIMIT 300
