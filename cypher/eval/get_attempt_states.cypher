// Status and content hash of existing attempts (a resumed run skips the completed ones).
// $attempt_ids: list<string>
UNWIND $attempt_ids AS id
MATCH (a:Attempt {attempt_id: id})
RETURN a.attempt_id AS attempt_id, a.status AS status, a.content_hash AS content_hash
