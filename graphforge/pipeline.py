"""Plain-code pipeline helpers: run stages in order, timed, with failures named by stage."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from graphforge.context import StageContext
from graphforge.errors import GraphforgeError, StageError

T = TypeVar("T")


def run_stage(ctx: StageContext, name: str, fn: Callable[[], T], timings: dict[str, float]) -> T:
    """Run one stage, record its wall time in ``timings`` and wrap a failure in StageError(stage=name)."""
    started = time.perf_counter()
    try:
        return fn()
    except GraphforgeError as exc:
        raise StageError(name, str(exc)) from exc
    finally:
        timings[name] = round(time.perf_counter() - started, 3)
