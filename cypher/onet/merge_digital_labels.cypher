// Set the DIGITAL flag of tasks, recording where it came from (labels file, all-candidates, model).
// $rows: list<DigitalRow>
UNWIND $rows AS row
MATCH (t:Task {task_id: row.task_id})
SET t.digital = row.digital, t.digital_source = row.digital_source, t.digital_model = row.digital_model
RETURN count(*) AS written
