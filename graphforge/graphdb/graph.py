"""A thin wrapper over the neo4j driver: named queries, batched writes, lazy reads, one error tree."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import neo4j
from neo4j.exceptions import AuthError, DriverError, Neo4jError, ServiceUnavailable
from pydantic import BaseModel

from graphforge.errors import CypherError, GraphConnectionError
from graphforge.graphdb.cypher import CypherQuery

M = TypeVar("M", bound=BaseModel)
Row = BaseModel | Mapping[str, Any]


def _row_dict(row: Row) -> dict[str, Any]:
    return row.model_dump(mode="json") if isinstance(row, BaseModel) else dict(row)


def _check_params(query: CypherQuery, given: Iterable[str]) -> None:
    missing = query.params - set(given)
    if missing:
        raise CypherError(query.name, f"missing parameters: {', '.join(sorted(missing))}")


class Graph:
    """Runs named queries against one database. Values always travel as parameters."""

    def __init__(self, driver: neo4j.Driver, database: str = "neo4j", batch_size: int = 2000,
                 fetch_size: int = 100, batch_bytes: int = 8_000_000) -> None:
        self.driver = driver
        self.database = database
        self.batch_size = batch_size
        # A transaction also ends once its rows hold about this many bytes of text: 2,000 file rows of
        # thousands of long spans each would otherwise be one transaction of hundreds of MB, which a
        # small server heap spends in garbage collection (bench/write_bench.py measured it).
        self.batch_bytes = batch_bytes
        # Records pulled per round trip by stream(): small enough that large rows (a trajectory can be
        # hundreds of KB) never pile up in the driver's buffer, large enough to keep round trips rare.
        self.fetch_size = fetch_size

    def write(self, query: CypherQuery, rows: Iterable[Row], **params: Any) -> int:
        """Send rows in batches of ``batch_size`` as ``$rows``, one managed transaction per batch.

        Returns the sum of the query's ``written`` column. Batches are idempotent (MERGE on keys), so
        the driver's retry of a batch after a transient error is safe.
        """
        _check_params(query, {"rows", *params})
        written = 0
        for batch in batches((_row_dict(r) for r in rows), self.batch_size, self.batch_bytes):
            written += int(
                self._execute(
                    query, True, functools.partial(_sum_written, query=query, batch=batch, params=params)
                )
            )
        return written

    def execute(self, query: CypherQuery, **params: Any) -> list[dict[str, Any]]:
        """Run one write query (no $rows batching) in a managed transaction; return its records."""
        _check_params(query, params)
        return self._records(query, True, params)

    def execute_autocommit(self, query: CypherQuery, **params: Any) -> list[dict[str, Any]]:
        """Run a query in an auto-commit transaction (needed for ``CALL {...} IN TRANSACTIONS``)."""
        _check_params(query, params)
        try:
            with self.driver.session(database=self.database) as session:
                return [r.data() for r in session.run(query.text, params)]
        except (Neo4jError, DriverError) as exc:
            raise _wrap(query.name, exc) from exc

    def read(self, query: CypherQuery, model: type[M], **params: Any) -> list[M]:
        """Run a read query in a managed transaction and validate each record into ``model``."""
        _check_params(query, params)
        return [model.model_validate(r) for r in self._records(query, False, params)]

    def read_dicts(self, query: CypherQuery, **params: Any) -> list[dict[str, Any]]:
        """Run a read query and return plain record dicts (for aggregates and reports)."""
        _check_params(query, params)
        return self._records(query, False, params)

    def scalar(self, query: CypherQuery, **params: Any) -> Any:
        """First column of the first record of a read query, or None."""
        rows = self.read_dicts(query, **params)
        return next(iter(rows[0].values())) if rows else None

    def stream(self, query: CypherQuery, model: type[M], **params: Any) -> Iterator[M]:
        """Yield records lazily from one read transaction; memory stays flat for large results."""
        _check_params(query, params)
        try:
            with self.driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS,
                                     fetch_size=self.fetch_size) as s:
                with s.begin_transaction() as tx:
                    for record in tx.run(query.text, params):
                        yield model.model_validate(record.data())
        except (Neo4jError, DriverError) as exc:
            raise _wrap(query.name, exc) from exc

    def _records(self, query: CypherQuery, write: bool, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        def work(tx: neo4j.ManagedTransaction) -> list[dict[str, Any]]:
            # Consume inside the transaction function: the driver may retry it as a whole.
            return [r.data() for r in tx.run(query.text, dict(params))]

        records: list[dict[str, Any]] = self._execute(query, write, work)
        return records

    def _execute(
        self, query: CypherQuery, write: bool, work: Callable[[neo4j.ManagedTransaction], Any]
    ) -> Any:
        try:
            with self.driver.session(database=self.database) as session:
                run = session.execute_write if write else session.execute_read
                return run(work)
        except (Neo4jError, DriverError) as exc:
            raise _wrap(query.name, exc) from exc


def payload_size(value: Any) -> int:
    """Approximate bytes a value takes on the wire: string lengths plus 8 per other scalar."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, Mapping):
        return sum(len(k) + payload_size(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return sum(payload_size(v) for v in value)
    return 8


def batches(rows: Iterable[dict[str, Any]], max_rows: int, max_bytes: int) -> Iterator[list[dict[str, Any]]]:
    """Consecutive batches of at most ``max_rows`` rows, each closed once it holds ``max_bytes`` (a row
    larger than that is a batch of its own; rows are never split)."""
    batch: list[dict[str, Any]] = []
    size = 0
    for row in rows:
        batch.append(row)
        size += payload_size(row)
        if len(batch) >= max_rows or size >= max_bytes:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _sum_written(tx: neo4j.ManagedTransaction, *, query: CypherQuery, batch: Sequence[dict[str, Any]],
                 params: Mapping[str, Any]) -> int:
    result = tx.run(query.text, {**params, "rows": batch})
    return sum(int(r.get("written") or 0) for r in result)


def _wrap(name: str, exc: Exception) -> Exception:
    if isinstance(exc, AuthError):
        return GraphConnectionError(f"Neo4j refused the login while running {name!r}: {exc.message}")
    if isinstance(exc, ServiceUnavailable):
        return GraphConnectionError(f"Neo4j is not reachable while running {name!r}: {exc}")
    message = getattr(exc, "message", None) or str(exc)
    return CypherError(name, message.splitlines()[0] if message else type(exc).__name__)
