"""The OpenAI-compatible chat model against a real scripted HTTP server: text, tools, structured output,
retries, cache, cost accounting, async fan-out, and a key that never leaks."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from email.utils import formatdate
from pathlib import Path

import httpx
import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import BaseModel, Field, SecretStr

from graphforge.errors import ConfigError, LLMError
from graphforge.llm import (
    LEDGER,
    CallTotals,
    LLMHTTPError,
    OpenAICompatibleChatModel,
    StructuredOutputError,
    ask_structured,
    chat_model,
    completions_url,
    records_of,
)
from graphforge.settings import GraphforgeSettings
from tests.support.llm_fixtures import TEST_API_KEY
from tests.support.llm_server import (
    RecordedRequest,
    Reply,
    ScriptedLLMServer,
    error,
    json_answer,
    malformed,
    slow,
    text,
    tool_call,
)


class Verdict(BaseModel):
    criterion_id: str
    score: float = Field(ge=0, le=1)
    evidence: str


class ReadFile(BaseModel):
    """Read a workspace file."""

    path: str


def test_chat_model_is_none_without_a_base_url() -> None:
    assert chat_model(GraphforgeSettings(llm_base_url=None)) is None


def test_chat_model_without_a_model_name_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="GRAPHFORGE_LLM_MODEL"):
        chat_model(GraphforgeSettings(llm_base_url="http://127.0.0.1:1/v1", llm_model=None))


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("http://h:8000", "http://h:8000/v1/chat/completions"),
        ("http://h:8000/v1/", "http://h:8000/v1/chat/completions"),
        ("https://open.example.cn/api/paas/v4", "https://open.example.cn/api/paas/v4/chat/completions"),
        ("http://h/v1/chat/completions", "http://h/v1/chat/completions"),
        ("http://user:pw@h:1/v1", "http://h:1/v1/chat/completions"),
    ],
)
def test_completions_url(base: str, url: str) -> None:
    assert completions_url(base) == url


def test_plain_text_answer_with_usage_and_cost(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    scripted_llm.push(
        text("The variance is 1,250.", usage={"prompt_tokens": 1000, "completion_tokens": 2000})
    )
    answer = scripted_chat_model.invoke([SystemMessage("Be brief."), HumanMessage("What is the variance?")])
    assert answer.content == "The variance is 1,250."
    assert answer.usage_metadata == {"input_tokens": 1000, "output_tokens": 2000, "total_tokens": 3000}
    [record] = records_of(answer)
    assert (record.model, record.input_tokens, record.output_tokens) == ("scripted-model", 1000, 2000)
    assert record.cost_usd == pytest.approx(1000 / 1000 * 0.5 + 2000 / 1000 * 1.5)
    assert not record.cached and record.attempts == 1 and len(record.prompt_hash) == 64
    [request] = scripted_llm.chat_requests
    assert request.body["model"] == "scripted-model"
    assert [m["role"] for m in request.messages] == ["system", "user"]
    assert request.headers["Authorization"] == f"Bearer {TEST_API_KEY}"


def test_chat_model_from_settings_talks_to_the_configured_endpoint(
    scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings
) -> None:
    llm = chat_model(llm_settings)
    assert llm is not None and llm.endpoint == f"{scripted_llm.url}/chat/completions"
    scripted_llm.push(text("pong"))
    assert llm.invoke("ping").content == "pong"
    assert scripted_llm.chat_requests[0].body["model"] == llm_settings.llm_model


def test_tool_calls_round_trip(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    scripted_llm.push(tool_call("ReadFile", {"path": "ledger.xlsx"}), text("done"))
    llm = scripted_chat_model.bind_tools([ReadFile], tool_choice="auto")
    first = llm.invoke("Read the ledger.")
    assert isinstance(first, AIMessage)
    [call] = first.tool_calls
    assert call["name"] == "ReadFile" and call["args"] == {"path": "ledger.xlsx"}
    follow = [HumanMessage("Read the ledger."), first, ToolMessage("A1=Account", tool_call_id=call["id"])]
    assert llm.invoke(follow).content == "done"
    sent = scripted_llm.chat_requests
    assert sent[0].body["tools"][0]["function"]["name"] == "ReadFile"
    assert sent[0].body["tool_choice"] == "auto"
    # The assistant turn goes back with its tool call and the tool answer is linked by id.
    assistant, tool = sent[1].messages[1], sent[1].messages[2]
    assert assistant["tool_calls"][0]["function"]["name"] == "ReadFile"
    assert tool == {"role": "tool", "tool_call_id": call["id"], "content": "A1=Account"}


def test_tool_calls_without_ids_get_distinct_ids_that_tool_results_can_answer() -> None:
    from graphforge.llm.protocol import parse_assistant, to_openai

    reply = parse_assistant({"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", "function": {"name": "list_files", "arguments": "{}"}},
        {"type": "function", "function": {"name": "read_file", "arguments": '{"path": '}},
        {"type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.csv"}'}},
    ]})
    ids = [c["id"] for c in reply.tool_calls] + [c["id"] for c in reply.invalid_tool_calls]
    assert len(set(ids)) == 3 and all(ids)
    # What is sent back (and stored) names the same ids a ToolMessage built from reply.tool_calls uses.
    sent = [c["id"] for c in to_openai(reply)["tool_calls"]]
    assert sorted(sent) == sorted(ids)
    answers = [to_openai(ToolMessage("ok", tool_call_id=c["id"] or ""))["tool_call_id"]
               for c in reply.tool_calls]
    assert set(answers) <= set(sent)
    # A reply of calls only goes back with empty text, not null: llama-cpp-python's server refuses null.
    assert to_openai(reply)["content"] == ""


def test_malformed_tool_arguments_are_kept_as_invalid_calls(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    scripted_llm.push(tool_call("ReadFile", '{"path": "a.csv"'))
    answer = scripted_chat_model.invoke("go")
    assert answer.tool_calls == [] and answer.invalid_tool_calls[0]["name"] == "ReadFile"


def test_structured_output_uses_json_schema(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    scripted_llm.push(
        json_answer({"criterion_id": "s/c1", "score": 0.75, "evidence": "B4 = 1250"}, fenced=True)
    )
    verdict = scripted_chat_model.with_structured_output(Verdict).invoke("Judge c1.")
    assert verdict == Verdict(criterion_id="s/c1", score=0.75, evidence="B4 = 1250")
    fmt = scripted_llm.chat_requests[0].body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "Verdict"
    assert set(fmt["json_schema"]["schema"]["properties"]) == {"criterion_id", "score", "evidence"}


def test_raw_line_breaks_inside_answer_strings_are_read_not_refused(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    # A grammar-constrained server lets a model write a raw newline or tab inside a JSON string (SmolLM2's
    # evidence did); strict JSON refuses it, and every such verdict was lost after a useless repair turn.
    raw = '{"criterion_id": "s/c1", "score": 0.5, "evidence": "B4 holds\n1,250\tper the ledger"}'
    scripted_llm.push(text(raw))
    verdict = scripted_chat_model.with_structured_output(Verdict).invoke("Judge c1.")
    assert verdict == Verdict(criterion_id="s/c1", score=0.5, evidence="B4 holds\n1,250\tper the ledger")
    assert len(scripted_llm.chat_requests) == 1  # no repair turn


# What llama-cpp-python 0.3.x answers to response_format json_schema (measured on the real server).
LLAMA_CPP_REFUSAL = (
    "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
    "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}]"
)


def test_structured_output_detects_the_first_method_the_server_accepts(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    scripted_llm.push(
        error(400, "response_format json_schema is not supported"),
        error(500, LLAMA_CPP_REFUSAL),
        tool_call("Verdict", {"criterion_id": "s/c2", "score": 1.0, "evidence": "ok"}),
        tool_call("Verdict", {"criterion_id": "s/c3", "score": 0.0, "evidence": "no"}),
        tool_call("Verdict", {"criterion_id": "s/c4", "score": 0.5, "evidence": "mid"}),
    )
    verdict, records = ask_structured(scripted_chat_model, Verdict, "Judge c2.")
    assert verdict.criterion_id == "s/c2" and len(records) == 1
    second = scripted_chat_model.with_structured_output(Verdict).invoke("Judge c3.")
    assert second.criterion_id == "s/c3"
    bodies = [r.body for r in scripted_llm.chat_requests]
    assert bodies[0]["response_format"]["type"] == "json_schema"
    assert bodies[1]["response_format"]["type"] == "json_object"
    assert "response_format" not in bodies[2]
    assert bodies[2]["tool_choice"] == {"type": "function", "function": {"name": "Verdict"}}
    # Detected once: the next call, and a new client on the same cache folder, go straight to tools.
    assert len(bodies) == 4 and "tools" in bodies[3]
    fresh = OpenAICompatibleChatModel(base_url=scripted_llm.url, model=scripted_chat_model.model,
                                      cache_dir=scripted_chat_model.cache_dir)
    assert fresh.with_structured_output(Verdict).invoke("Judge c4.").criterion_id == "s/c4"
    assert len(scripted_llm.chat_requests) == 5 and "tools" in scripted_llm.chat_requests[4].body


def test_llama_cpp_refusal_is_not_retried_and_json_object_carries_the_schema(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    scripted_llm.push(error(500, LLAMA_CPP_REFUSAL),
                      json_answer({"criterion_id": "s/c1", "score": 0.5, "evidence": "B4"}))
    verdict = scripted_chat_model.with_structured_output(Verdict).invoke("Judge c1.")
    assert verdict.score == 0.5
    requests = scripted_llm.chat_requests
    assert len(requests) == 2  # the HTTP 500 saying the request is invalid was not retried
    fmt = requests[1].body["response_format"]
    assert fmt["type"] == "json_object" and set(fmt["schema"]["properties"]) == {"criterion_id", "score",
                                                                                "evidence"}
    assert "criterion_id" in requests[1].last_message["content"]  # the schema is spelled out too


def test_plain_prompting_is_the_last_resort(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    scripted_llm.push(
        error(400, "response_format is not supported"),
        error(400, "response_format is not supported"),
        error(400, "tools are not supported by this model"),
        text('Sure! {"criterion_id": "s/c1", "score": 0.25, "evidence": "row 4"} Hope it helps.'),
    )
    assert scripted_chat_model.with_structured_output(Verdict).invoke("Judge c1.").score == 0.25
    last = scripted_llm.chat_requests[-1].body
    assert "response_format" not in last and "tools" not in last
    assert '"criterion_id"' in last["messages"][-1]["content"]


def test_structured_method_can_be_set(scripted_llm: ScriptedLLMServer, tmp_path: Path) -> None:
    llm = OpenAICompatibleChatModel(base_url=scripted_llm.url, model="m", structured_method="json_object")
    scripted_llm.push(error(400, "response_format is not supported"))
    with pytest.raises(LLMHTTPError, match="HTTP 400"):
        llm.with_structured_output(Verdict).invoke("Judge.")  # set, not detected: no fallback
    assert len(scripted_llm.chat_requests) == 1
    assert scripted_llm.chat_requests[0].body["response_format"]["type"] == "json_object"
    settings = GraphforgeSettings(llm_base_url=scripted_llm.url, llm_model="m", llm_structured="tools",
                                  home=tmp_path)
    made = chat_model(settings)
    assert made is not None and made.structured_method == "tools"


@pytest.mark.parametrize("refusal", [error(401, "invalid api key"),
                                     error(400, "This model's maximum context length is 8192 tokens")])
def test_refusals_that_are_not_about_the_format_do_not_fall_back(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel, refusal: Reply
) -> None:
    scripted_llm.push(refusal, json_answer({"criterion_id": "x", "score": 1, "evidence": "e"}))
    with pytest.raises(LLMHTTPError):
        scripted_chat_model.with_structured_output(Verdict).invoke("Judge.")
    assert len(scripted_llm.chat_requests) == 1 and scripted_llm.remaining == 1


def test_structured_output_gets_one_repair(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    scripted_llm.push(
        json_answer({"criterion_id": "s/c1", "score": 7, "evidence": "x"}),
        json_answer({"criterion_id": "s/c1", "score": 0.7, "evidence": "x"}),
    )
    verdict, records = ask_structured(scripted_chat_model, Verdict, "Judge c1.")
    assert verdict.score == 0.7
    assert [r.purpose for r in records] == ["structured", "structured-repair"]
    repair = scripted_llm.chat_requests[1].last_message
    assert repair["role"] == "user" and "score" in repair["content"]
    assert CallTotals.of(records).calls == 2


def test_structured_output_failing_twice_raises_and_replays_from_the_cache(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    bad = json_answer({"criterion_id": "s/c1"})
    scripted_llm.push(bad, bad)
    with pytest.raises(StructuredOutputError, match="did not validate"):
        scripted_chat_model.with_structured_output(Verdict).invoke("Judge c1.")
    # The model's answers are kept: a re-run replays them (0 new calls) and is rejected the same way.
    with pytest.raises(StructuredOutputError, match="did not validate"):
        scripted_chat_model.with_structured_output(Verdict).invoke("Judge c1.")
    assert len(scripted_llm.chat_requests) == 2


def test_include_raw_reports_the_parsing_error(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    scripted_llm.push(text("not json"), text("still not json"))
    out = scripted_chat_model.with_structured_output(Verdict, include_raw=True).invoke("Judge.")
    assert out["parsed"] is None and out["parsing_error"] is not None
    assert len(records_of(out)) == 2


def test_retry_after_500_and_429(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    scripted_llm.push(error(500), error(429, "rate limited"), text("finally"))
    answer = scripted_chat_model.invoke("hello")
    assert answer.content == "finally"
    assert records_of(answer)[0].attempts == 3
    assert len(scripted_llm.chat_requests) == 3


def test_retry_after_a_timeout(scripted_llm: ScriptedLLMServer, tmp_path: Path) -> None:
    llm = OpenAICompatibleChatModel(
        base_url=scripted_llm.url, model="m", timeout_s=2.0, max_retries=2, backoff_s=0.01, cache_dir=None
    )
    # The good answer gets 2 s: the scripted server shares this process, so a busy machine can stall it.
    scripted_llm.push(slow(text("late"), 6.0), text("on time"))
    assert llm.invoke("hello").content == "on time"


def test_exhausted_retries_raise_llm_error_naming_the_endpoint(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    scripted_llm.push(*[error(503, "overloaded")] * 4)
    with pytest.raises(LLMHTTPError) as caught:
        scripted_chat_model.invoke("hello")
    assert isinstance(caught.value, LLMError)
    assert caught.value.status_code == 503 and caught.value.attempts == 4
    assert scripted_chat_model.endpoint in str(caught.value) and "overloaded" in str(caught.value)


def test_client_errors_are_not_retried(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    scripted_llm.push(error(401, "bad key"), text("never sent"))
    with pytest.raises(LLMHTTPError, match="HTTP 401"):
        scripted_chat_model.invoke("hello")
    assert scripted_llm.remaining == 1


def test_rerun_is_served_from_the_cache(scripted_llm: ScriptedLLMServer, tmp_path: Path) -> None:
    def make() -> OpenAICompatibleChatModel:
        return OpenAICompatibleChatModel(
            base_url=scripted_llm.url, model="m", cache_dir=tmp_path / "cache", cost_per_1k_input=1.0
        )

    scripted_llm.push(text("cached answer"))
    first = make().invoke("same prompt")
    again = make().invoke("same prompt")  # a new process would see the same sqlite file
    assert again.content == "cached answer" and len(scripted_llm.chat_requests) == 1
    assert (
        records_of(again)[0].cached and records_of(again)[0].prompt_hash == records_of(first)[0].prompt_hash
    )
    assert records_of(again)[0].cost_usd == records_of(first)[0].cost_usd
    # Anything that changes the answer changes the key: a seed, tools, the model.
    scripted_llm.push(text("other"))
    assert make().invoke("same prompt", seed=3).content == "other"


def test_failures_are_never_cached(scripted_llm: ScriptedLLMServer, tmp_path: Path) -> None:
    llm = OpenAICompatibleChatModel(
        base_url=scripted_llm.url, model="m", cache_dir=tmp_path / "cache", max_retries=0
    )
    scripted_llm.push(error(500), malformed())
    with pytest.raises(LLMHTTPError):
        llm.invoke("q")
    with pytest.raises(LLMHTTPError, match="not a chat completion"):
        llm.invoke("q")
    assert llm.response_cache is not None and len(llm.response_cache) == 0
    scripted_llm.push(text("good"))
    assert llm.invoke("q").content == "good" and len(llm.response_cache) == 1


def test_api_key_never_reaches_logs_errors_or_repr(
    scripted_llm: ScriptedLLMServer,
    scripted_chat_model: OpenAICompatibleChatModel,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A hostile proxy that echoes the key back in its error body.
    scripted_llm.push(*[error(502, f"upstream said: Bearer {TEST_API_KEY}")] * 4)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(LLMError) as caught:
        scripted_chat_model.invoke("hello")
    assert TEST_API_KEY not in str(caught.value) and "***" in str(caught.value)
    assert caplog.records and all(TEST_API_KEY not in r.getMessage() for r in caplog.records)
    assert TEST_API_KEY not in repr(scripted_chat_model)
    assert TEST_API_KEY not in scripted_chat_model.model_dump_json()


def test_retry_after_header_is_honoured() -> None:
    llm = OpenAICompatibleChatModel(base_url="http://127.0.0.1:1", model="m", backoff_s=0.01)
    request = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")
    assert llm._delay(0, httpx.Response(429, headers={"Retry-After": "7"}, request=request)) == 7.0
    dated = formatdate(time.time() + 30, usegmt=True)
    assert 20 < llm._delay(0, httpx.Response(503, headers={"Retry-After": dated}, request=request)) <= 30
    assert llm._delay(0, httpx.Response(503, request=request)) <= 0.01


def test_async_fan_out_respects_the_concurrency_limit(
    scripted_llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm = OpenAICompatibleChatModel(
        base_url=scripted_llm.url, model="m", concurrency=2, cache_dir=tmp_path / "cache"
    )
    scripted_llm.responder = lambda request: slow(text(f"echo {request.last_message['content']}"), 0.1)

    async def fan_out() -> list[AIMessage]:
        return await asyncio.gather(*(llm.ainvoke(f"q{i}") for i in range(6)))

    answers = asyncio.run(fan_out())
    assert [a.content for a in answers] == [f"echo q{i}" for i in range(6)]
    assert len(scripted_llm.chat_requests) == 6 and scripted_llm.max_in_flight <= 2
    totals = CallTotals.of(r for a in answers for r in records_of(a))
    assert totals.calls == 6 and totals.input_tokens > 0


def test_async_structured_output(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    scripted_llm.push(error(500), json_answer({"criterion_id": "s/c9", "score": 0.25, "evidence": "e"}))
    verdict = asyncio.run(scripted_chat_model.with_structured_output(Verdict).ainvoke("Judge c9."))
    assert verdict.score == 0.25


def test_api_key_is_a_secret() -> None:
    llm = OpenAICompatibleChatModel(base_url="http://127.0.0.1:1", model="m", api_key=SecretStr("sk-x"))
    assert "sk-x" not in str(llm) and llm._headers()["Authorization"] == "Bearer sk-x"


def _pieces(secret: str, size: int = 6) -> set[str]:
    return {secret[i : i + size] for i in range(len(secret) - size + 1)}


@pytest.mark.parametrize("status", [400, 502])
def test_a_server_echoing_request_headers_leaks_no_part_of_the_key(
    scripted_llm: ScriptedLLMServer,
    scripted_chat_model: OpenAICompatibleChatModel,
    caplog: pytest.LogCaptureFixture,
    status: int,
) -> None:
    def echo(request: RecordedRequest) -> Reply:
        # Padding puts the key across the 300-character cut; the second copy is cut by the proxy itself.
        headers = json.dumps(request.headers)
        auth = request.headers.get("Authorization", "")
        return error(status, "x" * 240 + f" Authorization: {auth} / partial: {auth[7:25]} / all: {headers}")

    scripted_llm.responder = echo
    caplog.set_level(logging.DEBUG)
    with pytest.raises(LLMHTTPError) as caught:
        scripted_chat_model.invoke("hello")
    assert scripted_llm.chat_requests[0].headers["Authorization"] == f"Bearer {TEST_API_KEY}"  # it was sent
    shown = [str(caught.value), *(r.getMessage() for r in caplog.records)]
    retries = [r for r in caplog.records if r.name == "graphforge.llm"]
    assert len(retries) == (0 if status == 400 else 3)  # 400: not retried; 502: three retries logged
    assert "xxx Authorization: Bearer ***" in str(caught.value)  # the body is shown, only the key is gone
    leaked = {piece for piece in _pieces(TEST_API_KEY) for text in shown if piece in text}
    assert not leaked


def test_replay_only_answers_from_the_cache_and_never_calls(
    scripted_llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    def make(**extra: object) -> OpenAICompatibleChatModel:
        return OpenAICompatibleChatModel(base_url=scripted_llm.url, model="m", cache_dir=tmp_path / "c",
                                         **extra)  # type: ignore[arg-type]

    scripted_llm.push(json_answer({"criterion_id": "c", "score": 0.5, "evidence": "e"}))
    mark = LEDGER.mark()
    assert make().with_structured_output(Verdict).invoke("Judge.").score == 0.5
    replay = make(replay_only=True)
    assert replay.with_structured_output(Verdict).invoke("Judge.").score == 0.5  # from the cache
    with pytest.raises(LLMHTTPError, match="replay-only") as caught:
        replay.invoke("a prompt never asked")
    assert caught.value.permanent and len(scripted_llm.chat_requests) == 1
    totals = LEDGER.since(mark)
    assert (totals.calls, totals.cached_calls) == (2, 1)


def test_the_local_model_when_not_running_is_a_config_error_naming_the_command(tmp_path: Path) -> None:
    settings = GraphforgeSettings(llm_local=True, llm_base_url=None, home=tmp_path)
    with pytest.raises(ConfigError, match="graphforge llm start"):
        chat_model(settings)
    # An explicit endpoint wins over the local model.
    other = GraphforgeSettings(llm_local=True, llm_base_url="http://127.0.0.1:1/v1", llm_model="m",
                               home=tmp_path)
    made = chat_model(other)
    assert made is not None and made.endpoint == "http://127.0.0.1:1/v1/chat/completions"
