// Sizes of the dimensions the corpus is measured against besides sectors and patterns (those come from
// coverage/get_coverage_axes, the one definition every report shares): task types and occupations.
// no parameters
RETURN COUNT { (:DWA) } AS task_types, COUNT { (:Occupation) } AS occupations
