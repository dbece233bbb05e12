"""On-disk response cache keyed by prompt hash: re-runs are free and resumable; failures are never kept."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

_SCHEMA = """CREATE TABLE IF NOT EXISTS responses (
    prompt_hash TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
)"""


class ResponseCache:
    """A sqlite file of successful chat-completions responses (the JSON body, verbatim)."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "responses.sqlite"
        self._lock = threading.Lock()
        self._ready = False

    def _connect(self) -> sqlite3.Connection:
        # A connection per operation: cheap for sqlite, and safe across threads, loops and processes.
        conn = sqlite3.connect(self.path, timeout=30.0)
        # WAL with synchronous=NORMAL: no fsync per commit (a cache may lose its last entries on power
        # loss, never its consistency), so many concurrent calls do not queue behind the disk.
        conn.execute("PRAGMA synchronous=NORMAL")
        if not self._ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(_SCHEMA)
            conn.commit()
            self._ready = True
        return conn

    def get(self, key: str) -> dict[str, Any] | None:
        if not self.path.exists():
            return None
        with self._lock:
            conn = self._connect()
            try:
                row = conn.execute("SELECT response FROM responses WHERE prompt_hash = ?", (key,)).fetchone()
            finally:
                conn.close()
        return json.loads(row[0]) if row else None

    def put(self, key: str, model: str, response: dict[str, Any]) -> None:
        """Store a successful response (callers only ever pass 200 answers that parsed)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            conn = self._connect()
            try:
                conn.execute(
                    "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)",
                    (key, model, json.dumps(response, ensure_ascii=False), time.time()),
                )
                conn.commit()
            finally:
                conn.close()

    def delete(self, key: str) -> None:
        """Forget an answer that turned out unusable (e.g. it failed schema validation)."""
        if not self.path.exists():
            return
        with self._lock:
            conn = self._connect()
            try:
                conn.execute("DELETE FROM responses WHERE prompt_hash = ?", (key,))
                conn.commit()
            finally:
                conn.close()

    def __len__(self) -> int:
        if not self.path.exists():
            return 0
        with self._lock:
            conn = self._connect()
            try:
                return int(conn.execute("SELECT count(*) FROM responses").fetchone()[0])
            finally:
                conn.close()
