// Applied schema migrations in version order.
// (no parameters)
MATCH (m:__GraphforgeMigration)
RETURN m.version AS version, m.description AS description, m.checksum AS checksum,
       toString(m.applied_at) AS applied_at
ORDER BY m.version
