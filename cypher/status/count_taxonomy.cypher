// What stages 1-2 left in the graph: O*NET release, occupations, tasks by DIGITAL label, vocabulary, seeds.
// $digital: bool (the DIGITAL label value that counts as digital; true)
CALL { MATCH (r:OnetRelease) RETURN count(r) AS releases }
CALL { MATCH (o:Occupation) RETURN count(o) AS occupations }
CALL {
  MATCH (t:Task)
  RETURN count(t) AS tasks, count(CASE WHEN t.digital = $digital THEN 1 END) AS digital_tasks,
         count(t.digital) AS labelled_tasks
}
CALL { MATCH (p:ExecutionPattern) RETURN count(p) AS execution_patterns }
CALL { MATCH (s:Seed) RETURN count(s) AS seeds, count(s.selection_rank) AS selected_seeds }
RETURN releases, occupations, tasks, digital_tasks, labelled_tasks, execution_patterns, seeds, selected_seeds
