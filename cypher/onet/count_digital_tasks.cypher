// Tasks by DIGITAL flag: true, false, or not yet labelled.
// No parameters.
MATCH (t:Task)
RETURN count(t) AS tasks, count(CASE WHEN t.digital = true THEN 1 END) AS digital,
       count(CASE WHEN t.digital = false THEN 1 END) AS not_digital,
       count(CASE WHEN t.digital IS NULL THEN 1 END) AS unlabelled
