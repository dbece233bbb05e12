"""pytest fixtures around the scripted chat server and the real local model (registered in conftest).

def test_x(scripted_llm, llm_settings):       # llm_settings: settings pointing at the server
    scripted_llm.push(json_answer({...}))
    llm = chat_model(llm_settings)
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from graphforge.llm import OpenAICompatibleChatModel
from graphforge.settings import GraphforgeSettings
from tests.support.llm_server import ScriptedLLMServer

TEST_API_KEY = "sk-test-7f3a9c1e5b2d4f60-never-log-me"


def llm_settings_for(server: ScriptedLLMServer, base: GraphforgeSettings) -> GraphforgeSettings:
    """``base`` pointed at ``server``; a fresh model name per call keeps tests' cache entries apart."""
    return base.model_copy(
        update={
            "llm_base_url": server.url,
            "llm_model": f"{server.model}-{uuid.uuid4().hex[:8]}",
            "llm_api_key": SecretStr(TEST_API_KEY),
            "llm_max_retries": 3,
            "llm_timeout_s": 10.0,
            "llm_cost_per_1k_input": 0.5,
            "llm_cost_per_1k_output": 1.5,
        }
    )


@pytest.fixture
def scripted_llm() -> Iterator[ScriptedLLMServer]:
    """A running scripted chat server; push replies, then read ``.requests``."""
    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture
def llm_settings(scripted_llm: ScriptedLLMServer, settings: GraphforgeSettings) -> GraphforgeSettings:
    """Session ``settings`` with the chat model on ``scripted_llm`` (``chat_model`` is then not None)."""
    return llm_settings_for(scripted_llm, settings)


@pytest.fixture
def scripted_chat_model(scripted_llm: ScriptedLLMServer, tmp_path: Path) -> OpenAICompatibleChatModel:
    """A chat model on ``scripted_llm`` with its own cache directory and near-zero backoff."""
    return OpenAICompatibleChatModel(
        base_url=scripted_llm.url,
        model=scripted_llm.model,
        api_key=SecretStr(TEST_API_KEY),
        max_retries=3,
        timeout_s=10.0,
        cost_per_1k_input=0.5,
        cost_per_1k_output=1.5,
        cache_dir=tmp_path / "llm-cache",
        backoff_s=0.01,
        backoff_max_s=0.05,
    )


# ---- the real local model ------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def local_llm_settings(settings: GraphforgeSettings) -> Iterator[GraphforgeSettings]:
    """Settings whose chat model is the real local model (SmolLM2-135M-Instruct via llama-cpp-python).

    Uses the server `graphforge llm start` runs under the test home when there is one; otherwise
    starts it for the session and stops it at the end. A model that cannot be started fails the tests
    that need it (ConfigError naming what to install): it never skips them. The response cache lives
    under the test home, so a second run of the same tests replays every answer (with
    GRAPHFORGE_LLM_REPLAY_ONLY=1 any new call is an error).
    """
    from graphforge.llm.server import ManagedLocalModel

    # One model, one request at a time, on a CPU shared with everything else: long timeouts, no retry
    # of a timed-out request (it would queue behind the abandoned one), answers capped at 256 tokens.
    local = settings.model_copy(update={"llm_local": True, "llm_base_url": None, "llm_model": None,
                                        "llm_timeout_s": max(settings.llm_timeout_s, 900.0),
                                        "llm_max_retries": 0, "llm_local_max_tokens": 256})
    managed = ManagedLocalModel(local)
    started = False
    if managed.pid() is None:
        port = local.llm_local_port
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                port = _free_port()  # someone else's server holds the default port
        local = local.model_copy(update={"llm_local_port": port})
        managed = ManagedLocalModel(local)
        managed.start()
        started = True
    try:
        yield local
    finally:
        if started:
            managed.stop()
