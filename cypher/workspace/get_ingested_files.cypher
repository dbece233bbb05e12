// Which of these sha256 keys are already fully ingested (spans written), with their validity.
// $sha256s: list<string>
UNWIND $sha256s AS sha
MATCH (f:File {sha256: sha})
WHERE f.ingested = true
RETURN f.sha256 AS sha256, f.valid AS valid
