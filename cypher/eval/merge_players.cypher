// Upsert evaluation players (a chat model under a system prompt, the oracle, an imported source).
// $rows: list<PlayerRow>
UNWIND $rows AS row
MERGE (p:Player {name: row.name})
SET p.kind = row.kind, p.scaffold = row.scaffold, p.model = row.model, p.endpoint = row.endpoint,
    p.system_prompt = row.system_prompt, p.system_prompt_hash = row.system_prompt_hash, p.source = row.source
RETURN count(*) AS written
