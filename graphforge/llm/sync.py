"""Write a loop once, as a coroutine, and run it synchronously too.

A retry or repair loop is written as an ``async def`` that awaits what it is given (send a request,
sleep, ask the model). The async caller passes real awaitables; the sync caller passes ``async def``
wrappers around blocking calls, which never suspend, and :func:`run_sync` drives that coroutine to its
end in the calling thread without an event loop. So the two paths cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """The result of a coroutine that never suspends (every await it makes completes at once)."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError("run_sync: the coroutine suspended; give it awaitables that complete at once")


def ready(fn: Callable[..., T]) -> Callable[..., Coroutine[Any, Any, T]]:
    """``fn`` (a blocking call) as an ``async def`` that returns its result without suspending."""

    async def call(*args: Any, **kwargs: Any) -> T:
        return fn(*args, **kwargs)

    return call
