// Upsert input-file family vocabulary nodes keyed by name (formats name the workspace File formats).
// $rows: list<InputFamilyRow>
UNWIND $rows AS row
MERGE (f:InputFamily {name: row.name})
SET f.description = row.description, f.formats = row.formats, f.keywords = row.keywords,
    f.vocab_version = row.vocab_version, f.ordinal = row.ordinal
RETURN count(*) AS written
