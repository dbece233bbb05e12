"""Every chat-model call this process made or replayed, for per-stage cost reports and cache checks.

    mark = LEDGER.mark()
    ...run a stage...
    totals = LEDGER.since(mark)     # CallTotals: calls, cached_calls, input/output tokens, cost
"""

from __future__ import annotations

import threading

from graphforge.llm.records import CallTotals, LLMCallRecord


class Ledger:
    """An append-only, thread-safe list of call records."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: list[LLMCallRecord] = []

    def add(self, record: LLMCallRecord) -> None:
        with self._lock:
            self._records.append(record)

    def mark(self) -> int:
        with self._lock:
            return len(self._records)

    def records(self, since: int = 0) -> list[LLMCallRecord]:
        with self._lock:
            return list(self._records[since:])

    def since(self, mark: int = 0) -> CallTotals:
        return CallTotals.of(self.records(mark))


LEDGER = Ledger()
