// Record one applied schema migration.
// $version, $description, $checksum
MERGE (m:__GraphforgeMigration {version: $version})
  ON CREATE SET m.applied_at = datetime()
SET m.description = $description, m.checksum = $checksum
RETURN count(*) AS written
