"""Versioned, checksummed schema migrations: schema/V0001__description.cypher, applied in order."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import neo4j
from neo4j.exceptions import DriverError, Neo4jError
from pydantic import BaseModel

from graphforge.errors import MigrationError
from graphforge.graphdb import cypher
from graphforge.graphdb.cypher import resource_dir
from graphforge.graphdb.graph import Graph

SCHEMA_DIR = resource_dir("schema")
_NAME_RE = re.compile(r"^V(\d{4})__([a-z0-9_]+)\.cypher$")

GET_APPLIED_MIGRATIONS = cypher.load("meta/get_applied_migrations")
MERGE_MIGRATION = cypher.load("meta/merge_migration")


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    checksum: str
    statements: tuple[str, ...]
    path: Path


class AppliedMigration(BaseModel):
    version: int
    description: str
    checksum: str
    applied_at: str | None = None


class MigrateResult(BaseModel):
    applied: list[str]
    already_applied: int
    pending_before: int


def discover(schema_dir: Path = SCHEMA_DIR) -> list[Migration]:
    """Parse every migration file, in version order; a misnamed file or a duplicate version is an error."""
    migrations: dict[int, Migration] = {}
    for path in sorted(schema_dir.glob("*.cypher")):
        match = _NAME_RE.match(path.name)
        if match is None:
            raise MigrationError(f"{path}: migration files are named V0001__snake_case_description.cypher")
        version = int(match.group(1))
        if version in migrations:
            raise MigrationError(f"{path}: version {version} is used twice")
        raw = path.read_bytes().replace(b"\r\n", b"\n")
        migrations[version] = Migration(version, match.group(2), hashlib.sha256(raw).hexdigest(),
                                        split_statements(raw.decode("utf-8")), path)
    return [migrations[v] for v in sorted(migrations)]


def split_statements(text: str) -> tuple[str, ...]:
    """Statements end with ';' at the end of a line; // comment lines are dropped."""
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    return tuple(s.strip() for s in re.split(r";[ \t]*(?:\n|$)", body) if s.strip())


def applied(graph: Graph) -> list[AppliedMigration]:
    return graph.read(GET_APPLIED_MIGRATIONS, AppliedMigration)


def pending(graph: Graph, schema_dir: Path = SCHEMA_DIR) -> list[Migration]:
    """Migrations not yet applied; refuses when an applied file was edited or removed."""
    files = {m.version: m for m in discover(schema_dir)}
    done = applied(graph)
    for record in done:
        current = files.get(record.version)
        if current is None:
            raise MigrationError(f"migration V{record.version:04d} ({record.description}) is applied "
                                 f"but its file is missing from {schema_dir}")
        if current.checksum != record.checksum:
            raise MigrationError(
                f"{current.path.name} was changed after it was applied (checksum "
                f"{record.checksum[:12]} → {current.checksum[:12]}); add a new migration instead"
            )
    done_versions = {r.version for r in done}
    return [m for v, m in sorted(files.items()) if v not in done_versions]


def migrate(graph: Graph, schema_dir: Path = SCHEMA_DIR) -> MigrateResult:
    """Apply pending migrations in order, recording each one once all its statements succeeded."""
    todo = pending(graph, schema_dir)
    already = len(applied(graph))
    names: list[str] = []
    for migration in todo:
        for statement in migration.statements:
            _run_schema_statement(graph.driver, graph.database, migration, statement)
        graph.execute(MERGE_MIGRATION, version=migration.version, description=migration.description,
                      checksum=migration.checksum)
        names.append(migration.path.name)
    return MigrateResult(applied=names, already_applied=already, pending_before=len(todo))


def _run_schema_statement(driver: neo4j.Driver, database: str, migration: Migration, statement: str) -> None:
    # Schema statements come verbatim from checksummed files under schema/, never from values;
    # Neo4j runs DDL only in auto-commit transactions, one statement each.
    try:
        with driver.session(database=database) as session:
            session.run(statement).consume()
    except (Neo4jError, DriverError) as exc:
        first = statement.splitlines()[0][:80]
        raise MigrationError(f"{migration.path.name}: statement {first!r} failed: "
                             f"{getattr(exc, 'message', None) or exc}") from exc
