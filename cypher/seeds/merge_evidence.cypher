// Upsert evidence passages (task statements or retrieved passages) that work demands cite.
// $rows: list<EvidenceRow>
UNWIND $rows AS row
MERGE (e:Evidence {evidence_id: row.evidence_id})
SET e.kind = row.kind, e.text = row.text, e.source = row.source, e.task_id = row.task_id
RETURN count(*) AS written
