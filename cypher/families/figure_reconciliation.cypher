// Figures that two files state for the same measure (compare, reconcile) or a total and its parts (derive),
// with the fact whose file is the later version of the other's (a supersedes edge), where there is one.
// At least one side is in a trusted file; the other may be a superseded draft or a confuser (a negative).
// Disagreements (reconcile) come first, so a large workspace's many agreeing figures cannot crowd them out.
// $workspace_id: the workspace.
CALL (*) {
  OPTIONAL MATCH (w0:Workspace {workspace_id: $workspace_id})-[:CONTAINS]->(nf:File)-[:HAS_SPAN]->(:Span)
        <-[:FROM_SPAN]-(:Fact)-[:DEPENDS_ON {kind: 'supersedes'}]->(:Fact)-[:FROM_SPAN]->(:Span)
        <-[:HAS_SPAN]-(of:File)
  RETURN collect(DISTINCT [nf.sha256, of.sha256]) AS versions
}
MATCH (w:Workspace {workspace_id: $workspace_id})-[ca:CONTAINS]->(fa:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(a:Fact)
MATCH (a)-[d:DEPENDS_ON]->(b:Fact)-[:FROM_SPAN]->(:Span)<-[:HAS_SPAN]-(fb:File)<-[cb:CONTAINS]-(w)
WHERE d.kind IN ['compare', 'reconcile', 'derive'] AND coalesce(a.kind, 'quantity') = 'quantity'
  AND coalesce(b.kind, 'quantity') = 'quantity'
  AND (coalesce(ca.role, 'core') IN ['core', 'supporting'] OR coalesce(cb.role, 'core') IN ['core', 'supporting'])
WITH DISTINCT a, b, d, fa, fb, versions
RETURN a.fact_id AS src, b.fact_id AS dst, d.kind AS kind,
       CASE WHEN [fa.sha256, fb.sha256] IN versions THEN a.fact_id
            WHEN [fb.sha256, fa.sha256] IN versions THEN b.fact_id END AS current
ORDER BY CASE kind WHEN 'reconcile' THEN 0 WHEN 'compare' THEN 1 ELSE 2 END, src, dst
LIMIT 500
