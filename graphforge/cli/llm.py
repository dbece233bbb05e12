"""`graphforge llm ...`: the project-managed local chat model (start, stop, status)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphforge.cli.common import JsonOption, emit, working

if TYPE_CHECKING:
    from graphforge.llm.server import LocalModelStatus


def _status() -> LocalModelStatus:
    from graphforge.llm.server import ManagedLocalModel
    from graphforge.settings import GraphforgeSettings

    return ManagedLocalModel(GraphforgeSettings()).status()


def start_cmd(as_json: JsonOption = False) -> None:
    """Start the local model server with a generated API key; a no-op when it runs.

    Stages use it when GRAPHFORGE_LLM_LOCAL=1 is set and GRAPHFORGE_LLM_BASE_URL is not.
    """
    from graphforge.llm.server import ManagedLocalModel
    from graphforge.settings import GraphforgeSettings

    with working("starting the local model"):
        ManagedLocalModel(GraphforgeSettings()).start()
    emit(_status(), as_json, "Local model started")


def stop_cmd(as_json: JsonOption = False) -> None:
    """Stop the local model server."""
    from graphforge.llm.server import ManagedLocalModel
    from graphforge.settings import GraphforgeSettings

    stopped = ManagedLocalModel(GraphforgeSettings()).stop()
    emit({"stopped": stopped}, as_json)


def status_cmd(as_json: JsonOption = False) -> None:
    """Whether the local model runs, where, and which model file it serves (never the key)."""
    emit(_status(), as_json, "Local model")
