// Sizes of the dimensions the corpus is measured against: sectors, execution patterns, task types, occupations.
// no parameters
RETURN COUNT { (:Sector) } AS sectors, COUNT { (:ExecutionPattern) } AS patterns,
       COUNT { (:DWA) } AS task_types, COUNT { (:Occupation) } AS occupations
