"""Shared fixtures: a real Neo4j for integration tests (never mocked, never skipped).

Neo4j comes from NEO4J_URI when it is set; otherwise the project-managed server is started under
``.graphforge/test`` with its own ports (GRAPHFORGE_HOME / GRAPHFORGE_BOLT_PORT / GRAPHFORGE_HTTP_PORT
override them), so tests never touch a user's own managed database.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import neo4j
import pytest

from graphforge.context import StageContext
from graphforge.graphdb import chores, migrations, server
from graphforge.graphdb.graph import Graph
from graphforge.settings import GraphforgeSettings

# Scripted OpenAI-compatible chat server fixtures (a real local HTTP server, not a mock).
pytest_plugins = ["tests.support.llm_fixtures"]

# Commands the tests run in-process read the environment: a project chosen in the developer's shell must not
# send them to another graph than the one the fixtures wipe and fill.
os.environ.pop("GRAPHFORGE_PROJECT", None)

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_settings() -> GraphforgeSettings:
    """Settings for the test server: env wins, else an isolated home and ports under the repo."""
    overrides: dict[str, object] = {}
    if "GRAPHFORGE_HOME" not in os.environ:
        overrides["home"] = REPO / ".graphforge" / "test"
    if "GRAPHFORGE_BOLT_PORT" not in os.environ:
        overrides["bolt_port"] = 17687
    if "GRAPHFORGE_HTTP_PORT" not in os.environ:
        overrides["http_port"] = 17474
    overrides.setdefault("heap_size", os.environ.get("GRAPHFORGE_HEAP_SIZE", "768m"))
    # Always the home's default project (its server on the ports above): never one that GRAPHFORGE_PROJECT
    # or a `graphforge project use` in that home chose, since the fixtures delete every node.
    overrides["project"] = "default"
    return GraphforgeSettings(**overrides)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def settings() -> GraphforgeSettings:
    return test_settings()


@pytest.fixture(scope="session")
def neo4j_info(settings: GraphforgeSettings) -> server.ServerInfo:
    # A missing or broken Neo4j must fail the run loudly: resolve() raises, it never skips.
    return server.resolve(settings, start=True)


@pytest.fixture(scope="session")
def neo4j_driver(neo4j_info: server.ServerInfo, settings: GraphforgeSettings) -> Iterator[neo4j.Driver]:
    driver = server.open_driver(neo4j_info)
    graph = Graph(driver, neo4j_info.database, settings.batch_size)
    chores.delete_data(graph)
    chores.drop_schema(graph)
    migrations.migrate(graph)  # so every run also tests schema/
    yield driver
    driver.close()


@pytest.fixture
def graph(neo4j_driver: neo4j.Driver, neo4j_info: server.ServerInfo, settings: GraphforgeSettings) -> Graph:
    """A fresh graph: every node but the migration records deleted."""
    g = Graph(neo4j_driver, neo4j_info.database, settings.batch_size)
    chores.delete_data(g)
    return g


@pytest.fixture
def ctx(graph: Graph, settings: GraphforgeSettings, tmp_path: Path) -> StageContext:
    return StageContext(settings=settings, graph=graph, run_id="test", out_dir=tmp_path / "out")
