// Fingerprint input of the training side: the sorted sha256 of every file any workspace contains.
// (no parameters)
MATCH (:Workspace)-[:CONTAINS]->(f:File)
WITH DISTINCT f.sha256 AS sha256
ORDER BY sha256
RETURN collect(sha256) AS sha256s
