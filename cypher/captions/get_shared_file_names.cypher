// File names that more than one file has (their captions add the folder, so they read apart).
// no parameters
MATCH (f:File)
WHERE f.name IS NOT NULL
WITH f.name AS name, count(*) AS files
WHERE files > 1
RETURN name
