"""The load_workspace writer thread: a failed write reaches the caller as our error, never as a hang."""

from __future__ import annotations

import hashlib

import neo4j
import pytest

from graphforge.errors import GraphConnectionError
from graphforge.graphdb.graph import Graph
from graphforge.models.workspace import ContainsRow, FileFormat, FileRole, SpanKind
from graphforge.parsers import ParsedFile
from graphforge.parsers.base import ParsedSpan
from graphforge.stages import load_workspace


def _unreachable_graph() -> Graph:
    # Port 1 on the loopback: nothing listens, the connection is refused at once; no retries for minutes.
    driver = neo4j.GraphDatabase.driver(
        "bolt://127.0.0.1:1", auth=("neo4j", "unused"), max_transaction_retry_time=0.2, connection_timeout=2
    )
    return Graph(driver)


def _file(name: str, chars: int) -> tuple[ParsedFile, ContainsRow]:
    sha = hashlib.sha256(name.encode()).hexdigest()
    parsed = ParsedFile(
        path=name, sha256=sha, size=chars, format=FileFormat.CSV, valid=True, parser="csv",
        spans=[ParsedSpan(locator="row=1", kind=SpanKind.ROW, text="x" * chars)],
    )
    link = ContainsRow(
        workspace_id="ws-writer", sha256=sha, path=name, role=FileRole.CORE, role_source="rules"
    )
    return parsed, link


def test_a_failed_write_is_raised_by_close() -> None:
    parsed, link = _file("a.csv", 10)
    graph = _unreachable_graph()
    try:
        writer = load_workspace._Writer(graph, {parsed.sha256: link})  # noqa: SLF001
        writer.put(parsed)
        with pytest.raises(GraphConnectionError, match="merge_workspace_files"):
            writer.close()
        assert writer.spans_written == 0
        writer.abort()  # after a failure: returns, nothing left to write
    finally:
        graph.driver.close()


@pytest.mark.timeout(120)
def test_put_raises_the_write_error_instead_of_waiting_for_room(monkeypatch: pytest.MonkeyPatch) -> None:
    # A queue with room for one file: the third put waits for room, which a failed writer never makes.
    monkeypatch.setattr(load_workspace, "QUEUE_CHARS", 10)
    files = [_file(f"f{i}.csv", 10) for i in range(3)]
    graph = _unreachable_graph()
    try:
        writer = load_workspace._Writer(graph, {p.sha256: link for p, link in files})  # noqa: SLF001
        with pytest.raises(GraphConnectionError):
            for parsed, _ in files:
                writer.put(parsed)
        writer.abort()
    finally:
        graph.driver.close()
