// Current files that state at least four requirements (shall / must / is required to): a checklist source. A
// file a later version supersedes is none ("show that our work meets what the old version asks" misleads);
// files whose requirements another file states too (compare edges) come first: their spec can ask for both.
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[c:CONTAINS]->(f:File)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(r:Fact)
WHERE r.kind = 'requirement' AND coalesce(c.role, 'core') IN ['core', 'supporting']
WITH f, collect(r.fact_id) AS requirements,
     sum(CASE WHEN EXISTS { (r)-[:DEPENDS_ON {kind: 'compare'}]-(:Fact) } THEN 1 ELSE 0 END) AS restated
WHERE size(requirements) >= 4
WITH f, requirements, restated,
     EXISTS {
       MATCH (f)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(:Fact)<-[:DEPENDS_ON {kind: 'supersedes'}]-(:Fact)
     } AS superseded
WHERE NOT superseded
// The facts a checklist row may name beside a requirement: another file's statement of it, and the earlier
// version the file supersedes (its heads at both ends of the supersedes edge).
RETURN f.sha256 AS sha256, requirements,
       COLLECT {
         MATCH (f)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(r:Fact {kind: 'requirement'})
               -[:DEPENDS_ON {kind: 'compare'}]-(o:Fact)
         RETURN DISTINCT o.fact_id
       } AS restated_by,
       COLLECT {
         MATCH (f)-[:HAS_SPAN]->(:Span)<-[:FROM_SPAN]-(n:Fact)-[:DEPENDS_ON {kind: 'supersedes'}]->(p:Fact)
         UNWIND [n.fact_id, p.fact_id] AS id
         RETURN DISTINCT id
       } AS versions
ORDER BY CASE WHEN restated > 0 THEN 0 ELSE 1 END,
         size(requirements) DESC, sha256
