"""One tree of errors for the whole project.

    GraphforgeError
    ├── ConfigError             bad or missing settings, credentials, ports
    ├── ServerError             the project-managed Neo4j could not be fetched, started or stopped
    ├── GraphConnectionError    Neo4j is not reachable or refused the login
    ├── CypherError             a named query failed (carries query_name)
    ├── MigrationError          a schema migration is broken or an applied file was edited
    ├── SourceFormatError       an input file is unreadable or lacks what it must have (names the file)
    ├── StageError              a pipeline stage failed (carries stage)
    ├── LLMError                a chat-model call failed after retries
    ├── JudgeError              judging could not be completed
    └── ExportError             an export was refused or could not be written

The CLI prints ``str(error)`` as one line and exits with status 1.
"""

from __future__ import annotations


class GraphforgeError(Exception):
    """Base class of every error GraphForge raises on purpose."""


class ConfigError(GraphforgeError):
    """Settings are missing, inconsistent or rejected."""


class ServerError(GraphforgeError):
    """The project-managed Neo4j server could not be fetched, started or stopped."""


class GraphConnectionError(GraphforgeError):
    """Neo4j cannot be reached, or it refused the credentials."""


class CypherError(GraphforgeError):
    """A named Cypher query failed."""

    def __init__(self, query_name: str, message: str) -> None:
        super().__init__(f"query {query_name!r} failed: {message}")
        self.query_name = query_name


class MigrationError(GraphforgeError):
    """A schema migration could not be applied, or an applied one was changed."""


class SourceFormatError(GraphforgeError):
    """An input file cannot be read as what it claims to be."""

    def __init__(self, path: object, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = str(path)
        self.problem = problem


class StageError(GraphforgeError):
    """A pipeline stage failed."""

    def __init__(self, stage: str, message: str) -> None:
        super().__init__(f"stage {stage!r} failed: {message}")
        self.stage = stage


class LLMError(GraphforgeError):
    """A chat-model call failed after its retries."""


class JudgeError(GraphforgeError):
    """A judgment could not be completed."""


class ExportError(GraphforgeError):
    """An export was refused or could not be written."""
