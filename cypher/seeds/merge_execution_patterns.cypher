// Upsert execution-pattern vocabulary nodes keyed by name, with the vocabulary version they came from.
// $rows: list<PatternRow>
UNWIND $rows AS row
MERGE (p:ExecutionPattern {name: row.name})
SET p.description = row.description, p.keywords = row.keywords, p.default_inputs = row.default_inputs,
    p.vocab_version = row.vocab_version, p.ordinal = row.ordinal
RETURN count(*) AS written
