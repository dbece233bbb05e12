// The table scale of each anchored fact of a spec ("in thousands": 1000), defaulting to 1.
// $spec_id: the spec.
MATCH (:TaskSpec {spec_id: $spec_id})-[:HAS_CRITERION]->(:Criterion)-[:ANCHORED_TO]->(fa:Fact)
RETURN DISTINCT fa.fact_id AS fact_id, coalesce(fa.scale, 1.0) AS scale
