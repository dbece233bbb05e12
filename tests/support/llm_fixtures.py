"""pytest fixtures around the scripted chat server (register with ``pytest_plugins`` or import them).

def test_x(scripted_llm, llm_settings):       # llm_settings: settings pointing at the server
    scripted_llm.push(json_answer({...}))
    llm = chat_model(llm_settings)
"""

from __future__ import annotations

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
