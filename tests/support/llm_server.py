"""A real local HTTP server that speaks the OpenAI chat-completions protocol and answers from a script.

    with ScriptedLLMServer() as server:
        server.push(text("hello"), error(500), tool_call("read_file", {"path": "a.csv"}),
                    json_answer({"score": 0.5}))
        llm = OpenAICompatibleChatModel(base_url=server.url, model="scripted")
        ...
        assert server.requests[0].body["messages"][0]["role"] == "system"

Each POST to ``/v1/chat/completions`` pops the next reply; a reply may also be a function of the
recorded request (for answers that depend on what was asked). When the script runs out the server
answers 418 with "script exhausted" (a non-retryable status, so a test fails fast and says why), or
calls ``server.responder`` when one is set. ``GET /v1/models`` lists the served model.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

_ids = itertools.count(1)


@dataclass(frozen=True)
class Reply:
    """One scripted HTTP answer."""

    status: int = 200
    message: dict[str, Any] | None = None  # choices[0].message for a 200
    finish_reason: str = "stop"
    usage: dict[str, int] | None = None  # None: estimated from the request and the answer
    headers: dict[str, str] = field(default_factory=dict)
    error: str = ""
    raw_body: bytes | None = None  # sent verbatim (malformed answers)
    delay_s: float = 0.0  # wait before answering (client timeouts)


ReplyLike = Reply | Callable[["RecordedRequest"], Reply]


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def last_message(self) -> dict[str, Any]:
        return self.messages[-1] if self.messages else {}


def text(content: str, *, usage: dict[str, int] | None = None, finish_reason: str = "stop") -> Reply:
    """A plain assistant answer."""
    return Reply(message={"role": "assistant", "content": content}, usage=usage, finish_reason=finish_reason)


def tool_calls(
    *calls: tuple[str, Mapping[str, Any] | str],
    content: str | None = None,
    usage: dict[str, int] | None = None,
) -> Reply:
    """An assistant turn calling tools; arguments given as a dict (sent as JSON) or raw text."""
    made = [
        {
            "id": f"call_{next(_ids)}",
            "type": "function",
            "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
        }
        for name, args in calls
    ]
    return Reply(
        message={"role": "assistant", "content": content, "tool_calls": made},
        usage=usage,
        finish_reason="tool_calls",
    )


def tool_call(name: str, arguments: Mapping[str, Any] | str, *, content: str | None = None) -> Reply:
    """An assistant turn calling one tool."""
    return tool_calls((name, arguments), content=content)


def json_answer(value: Any, *, fenced: bool = False) -> Reply:
    """A structured-output answer: the JSON text as the message content (optionally in a code fence)."""
    body = json.dumps(value)
    return text(f"```json\n{body}\n```" if fenced else body)


def error(status: int, message: str = "scripted failure", *, retry_after: str | None = "0") -> Reply:
    """An HTTP error in OpenAI's error shape. Retry-After defaults to 0 so retry tests stay fast."""
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Reply(status=status, error=message, headers=headers)


def malformed(body: bytes = b"{not json") -> Reply:
    """A 200 whose body is not a chat completion."""
    return Reply(raw_body=body)


def slow(reply: Reply, delay_s: float) -> Reply:
    """The same reply, sent after a delay (to trigger client timeouts)."""
    return Reply(**{**reply.__dict__, "delay_s": delay_s})


def _estimate_tokens(value: Any) -> int:
    # About four characters a token: close enough for cost-accounting tests, and deterministic.
    return max(1, len(json.dumps(value, ensure_ascii=False)) // 4)


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default backlog of 5 resets connections under fan-out tests
    daemon_threads = True


class ScriptedLLMServer:
    """Threaded HTTP server on 127.0.0.1 with a free port, answering from a queue of replies."""

    def __init__(self, model: str = "scripted-model") -> None:
        self.model = model
        self.requests: list[RecordedRequest] = []
        self.responder: Callable[[RecordedRequest], Reply] | None = None
        self._queue: deque[ReplyLike] = deque()
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None
        self.in_flight = 0
        self.max_in_flight = 0  # the most chat requests being answered at once (concurrency-limit tests)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The base URL to configure (GRAPHFORGE_LLM_BASE_URL)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def push(self, *replies: ReplyLike) -> ScriptedLLMServer:
        with self._lock:
            self._queue.extend(replies)
        return self

    def start(self) -> ScriptedLLMServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _next(self, request: RecordedRequest) -> Reply:
        with self._lock:
            item = self._queue.popleft() if self._queue else None
        if item is None:
            if self.responder is not None:
                return self.responder(request)
            return Reply(
                status=418, error="script exhausted: the test scripted fewer replies than were asked for"
            )
        return item(request) if callable(item) else item

    def _completion(self, request: RecordedRequest, reply: Reply) -> dict[str, Any]:
        assert reply.message is not None
        usage = reply.usage or {
            "prompt_tokens": _estimate_tokens(request.messages),
            "completion_tokens": _estimate_tokens(reply.message),
        }
        usage = {**usage, "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"]}
        return {
            "id": f"chatcmpl-{next(_ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.body.get("model", self.model),
            "choices": [{"index": 0, "message": reply.message, "finish_reason": reply.finish_reason}],
            "usage": usage,
        }

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms ACK stalls

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                return  # keep pytest output clean

            def _send(self, status: int, payload: bytes, headers: Mapping[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                server.requests.append(RecordedRequest("GET", self.path, dict(self.headers), {}))
                if self.path.rstrip("/").endswith("/models"):
                    body = {"object": "list", "data": [{"id": server.model, "object": "model"}]}
                    self._send(200, json.dumps(body).encode())
                else:
                    self._send(404, b'{"error": {"message": "not found"}}')

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_unparsed": raw.decode("utf-8", "replace")}
                request = RecordedRequest("POST", self.path, dict(self.headers), body)
                server.requests.append(request)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, b'{"error": {"message": "only /v1/chat/completions is served"}}')
                    return
                reply = server._next(request)
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    if reply.delay_s:
                        time.sleep(reply.delay_s)
                    if reply.raw_body is not None:
                        self._send(reply.status, reply.raw_body, reply.headers)
                    elif reply.status != 200:
                        err = {"error": {"message": reply.error, "type": "scripted", "code": reply.status}}
                        self._send(reply.status, json.dumps(err).encode(), reply.headers)
                    else:
                        self._send(
                            200, json.dumps(server._completion(request, reply)).encode(), reply.headers
                        )
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing left to answer
                finally:
                    with server._lock:
                        server.in_flight -= 1

        return Handler
