"""The chat model every LLM stage uses: OpenAI-compatible HTTP, cached, retried, priced.

from graphforge.llm import chat_model, ask_structured
llm = chat_model(settings)            # None when GRAPHFORGE_LLM_BASE_URL is unset: use the rule-based path
answer = llm.invoke("...")            # AIMessage with usage_metadata; records_of(answer) -> [LLMCallRecord]
verdict, records = ask_structured(llm, Verdict, messages)   # validated pydantic instance + records
"""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr

from graphforge.errors import ConfigError
from graphforge.llm.cache import ResponseCache
from graphforge.llm.ledger import LEDGER, Ledger
from graphforge.llm.model import OpenAICompatibleChatModel
from graphforge.llm.protocol import completions_url, from_openai_message, to_openai
from graphforge.llm.records import (
    CallTotals,
    LLMCallRecord,
    LLMHTTPError,
    StructuredOutputError,
    records_of,
)
from graphforge.llm.structured import Structured, aask_structured, ask_structured
from graphforge.settings import GraphforgeSettings

__all__ = [
    "LEDGER",
    "CallTotals",
    "Ledger",
    "LLMCallRecord",
    "LLMHTTPError",
    "OpenAICompatibleChatModel",
    "ResponseCache",
    "Structured",
    "StructuredOutputError",
    "aask_structured",
    "ask_structured",
    "chat_model",
    "completions_url",
    "from_openai_message",
    "records_of",
    "to_openai",
]


def chat_model(settings: GraphforgeSettings, **overrides: Any) -> OpenAICompatibleChatModel | None:
    """The configured chat model, or None when no endpoint is set (callers then use their rule-based path).

    GRAPHFORGE_LLM_BASE_URL (with GRAPHFORGE_LLM_MODEL) names any OpenAI-compatible endpoint; without
    it, GRAPHFORGE_LLM_LOCAL=1 uses the managed local model (`graphforge llm start`).
    ``overrides`` set any OpenAICompatibleChatModel field (temperature, seed, cache_dir=None to
    disable the cache, backoff_s, ...). The cache lives under ``settings.home / "llm-cache"``.
    """
    max_tokens = settings.llm_max_tokens
    if settings.llm_base_url:
        if not settings.llm_model:
            raise ConfigError(
                "GRAPHFORGE_LLM_BASE_URL is set but GRAPHFORGE_LLM_MODEL is not: name the served model"
            )
        base_url, model, api_key = settings.llm_base_url, settings.llm_model, settings.llm_api_key
    elif settings.llm_local:
        from graphforge.llm.server import local_model_info

        info = local_model_info(settings)
        base_url, model, api_key = info.base_url, info.model, SecretStr(info.api_key)
        max_tokens = max_tokens or info.max_tokens
    else:
        return None
    fields: dict[str, Any] = {
        "base_url": base_url,
        "model": model,
        "api_key": api_key,
        "max_tokens": max_tokens,
        "structured_method": settings.llm_structured,
        "replay_only": settings.llm_replay_only,
        "timeout_s": settings.llm_timeout_s,
        "max_retries": settings.llm_max_retries,
        "concurrency": settings.llm_concurrency,
        "cost_per_1k_input": settings.llm_cost_per_1k_input,
        "cost_per_1k_output": settings.llm_cost_per_1k_output,
        "cache_dir": settings.home / "llm-cache",
    }
    fields.update(overrides)
    return OpenAICompatibleChatModel(**fields)
