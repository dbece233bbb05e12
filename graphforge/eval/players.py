"""Evaluation players as the CLI names them: ``NAME=ENDPOINT`` for chat models, the oracle, imported runs.

ENDPOINT is one of
    http(s)://host:port/v1          an OpenAI-compatible chat endpoint, run with the built-in agent loop
    local                           the managed local model (`graphforge llm start`), same loop
    oracle                          the benchmark's expert deliverables (GDPVal ``deliverable_files``)
    import:FORMAT:PATH              trajectories another scaffold produced, matched to tasks by their
                                    ``spec_id`` (= task id); FORMAT is one the caller passes as
                                    ``import_formats`` (the CLI: the trajectory format registry's
                                    evaluable formats, loaders.trajectories.format_names(evaluable=True))
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection
from enum import StrEnum
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict

from graphforge.errors import ConfigError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@:+/ ()-]{0,79}$")
ORACLE_SCAFFOLD = "benchmark-gold"
ORACLE_MODEL = "expert deliverables"


class PlayerKind(StrEnum):
    CHAT = "chat"
    ORACLE = "oracle"
    IMPORT = "import"


class PlayerSpec(BaseModel):
    """One player of an evaluation run: who attempts the tasks, and how."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    kind: PlayerKind
    base_url: str | None = None  # chat players (None with local=True: the managed local model)
    local: bool = False
    served_model: str | None = None  # the model id the endpoint serves (None: asked from /v1/models)
    system_prompt: str | None = None  # None: the built-in loop's own system prompt
    api_key_env: str | None = None  # environment variable holding this endpoint's key
    import_format: str | None = None
    import_path: Path | None = None

    @property
    def scaffold(self) -> str:
        from graphforge.agent.loop import SCAFFOLD

        if self.kind is PlayerKind.CHAT:
            return SCAFFOLD
        if self.kind is PlayerKind.ORACLE:
            return ORACLE_SCAFFOLD
        return f"import:{self.import_format}"

    @property
    def system_prompt_hash(self) -> str | None:
        if self.system_prompt is None:
            return None
        return hashlib.sha256(self.system_prompt.encode("utf-8")).hexdigest()[:16]


def check_name(name: str, what: str = "player") -> str:
    """A player name fit for node keys and attempt ids (letters, digits and ._@:+ ()-, at most 80)."""
    if not _NAME.match(name):
        raise ConfigError(
            f"{what} name {name!r} must start with a letter or digit and use only letters, "
            "digits, spaces and ._@:+/()- (at most 80 characters)"
        )
    return name


def public_endpoint(url: str) -> str:
    """The endpoint as it may be stored and printed: any user:password in the URL removed."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def parse_player(text: str, import_formats: Collection[str]) -> PlayerSpec:
    """Parse ``NAME=ENDPOINT`` (see the module docstring); raises ConfigError naming the problem.

    ``import_formats``: the trajectory formats ``import:FORMAT:PATH`` may name (core code does not read the
    loaders' registry itself; its callers pass ``loaders.trajectories.format_names(evaluable=True)``).
    """
    name, sep, endpoint = text.partition("=")
    name, endpoint = name.strip(), endpoint.strip()
    if not sep or not name or not endpoint:
        raise ConfigError(
            "--model takes NAME=ENDPOINT (an http(s) URL, 'local', 'oracle' or 'import:FORMAT:PATH'), "
            f"got {text!r}"
        )
    check_name(name)
    if endpoint == "local":
        return PlayerSpec(name=name, kind=PlayerKind.CHAT, local=True)
    if endpoint == "oracle":
        return PlayerSpec(name=name, kind=PlayerKind.ORACLE)
    if endpoint.startswith("import:"):
        fmt, sep, path = endpoint.removeprefix("import:").partition(":")
        if not sep or fmt not in import_formats or not path:
            raise ConfigError(
                f"--model {name}: imported runs are import:FORMAT:PATH with FORMAT one of "
                f"{', '.join(import_formats) or '(none registered)'}, got {endpoint!r}"
            )
        return PlayerSpec(name=name, kind=PlayerKind.IMPORT, import_format=fmt, import_path=Path(path))
    if urlsplit(endpoint).scheme in ("http", "https") and urlsplit(endpoint).hostname:
        return PlayerSpec(name=name, kind=PlayerKind.CHAT, base_url=endpoint)
    raise ConfigError(
        f"--model {name}: endpoint {endpoint!r} is not an http(s) URL, 'local', 'oracle' or "
        "'import:FORMAT:PATH'"
    )


def per_player(values: list[str], option: str) -> dict[str, str]:
    """Parse repeated ``NAME=VALUE`` options (``--system-prompt``, ``--served-model``, ``--api-key-env``)."""
    out: dict[str, str] = {}
    for text in values:
        name, sep, value = text.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"{option} takes NAME=VALUE, got {text!r}")
        if name.strip() in out:
            raise ConfigError(f"{option} names {name.strip()!r} twice")
        out[name.strip()] = value
    return out


def build_players(
    models: list[str],
    system_prompts: list[str] | None = None,
    served_models: list[str] | None = None,
    api_key_envs: list[str] | None = None,
    *,
    import_formats: Collection[str],
) -> list[PlayerSpec]:
    """Players from the CLI options; a ``--system-prompt`` value starting with @ names a file to read.

    ``import_formats``: the trajectory formats an ``import:FORMAT:PATH`` player may name (see parse_player).
    """
    players = [parse_player(m, import_formats) for m in models]
    names = [p.name for p in players]
    if len(set(names)) != len(names):
        raise ConfigError(
            f"--model names a player twice: {', '.join(sorted(n for n in names if names.count(n) > 1))}"
        )
    extras = {
        "--system-prompt": per_player(system_prompts or [], "--system-prompt"),
        "--served-model": per_player(served_models or [], "--served-model"),
        "--api-key-env": per_player(api_key_envs or [], "--api-key-env"),
    }
    chat = {p.name for p in players if p.kind is PlayerKind.CHAT}
    for option, values in extras.items():
        for name in values:
            if name not in chat:
                raise ConfigError(f"{option} names {name!r}, which is not a chat player of --model")
    out = []
    for p in players:
        prompt = extras["--system-prompt"].get(p.name)
        if prompt is not None and prompt.startswith("@"):
            path = Path(prompt[1:])
            try:
                prompt = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise ConfigError(f"--system-prompt {p.name}: cannot read {path}: {exc.strerror}") from exc
        if prompt is not None and not prompt.strip():
            raise ConfigError(f"--system-prompt {p.name}: the prompt is empty")
        out.append(
            p.model_copy(
                update={
                    "system_prompt": prompt,
                    "served_model": extras["--served-model"].get(p.name),
                    "api_key_env": extras["--api-key-env"].get(p.name),
                }
            )
        )
    return out
