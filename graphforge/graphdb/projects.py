"""Projects: graphs kept apart, each its own managed Neo4j (home and ports) under one GraphForge home.

Neo4j Community holds one user database per server, so a project is a server. ``<home>/projects/NAME/``
holds ``project.json`` (its name and the Bolt and HTTP ports picked when it was created) and ``neo4j/``
(conf, data, logs, credentials). The project named ``default`` is the graph GraphForge used before
projects existed: ``<home>/neo4j`` on the configured ports (GRAPHFORGE_BOLT_PORT / GRAPHFORGE_HTTP_PORT),
or the Neo4j that NEO4J_URI names. ``graphforge project use NAME`` records the current project in
``<home>/state.json``; GRAPHFORGE_PROJECT overrides it for one shell or one command.

This module knows paths and records only (no settings, no server); ``graphforge.settings`` reads it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from graphforge.errors import ConfigError

DEFAULT = "default"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
# A new project's ports: the default project's ports plus a multiple of this step, the first pair that no
# other project has recorded and nothing listens on (so the same history gives the same ports).
PORT_STEP = 10
_MAX_STEPS = 500


class ProjectRecord(BaseModel):
    """What ``project.json`` holds."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    name: str
    bolt_port: int
    http_port: int
    created: str


def check_name(name: str) -> str:
    """``name`` when it is a valid project name, else a one-line ConfigError."""
    if not _NAME.match(name):
        raise ConfigError(f"bad project name {name!r}: use 1-40 lowercase letters, digits, '-' or '_', "
                          "starting with a letter or digit")
    return name


def projects_root(home: Path) -> Path:
    return home / "projects"


def project_dir(home: Path, name: str) -> Path:
    return projects_root(home) / check_name(name)


def server_home(home: Path, name: str) -> Path:
    """Where the project's managed Neo4j lives (conf, data, logs, credentials)."""
    return home / "neo4j" if name == DEFAULT else project_dir(home, name) / "neo4j"


def state_file(home: Path) -> Path:
    return home / "state.json"


def read_current(home: Path) -> str | None:
    """The project `graphforge project use` recorded, or None when none was."""
    path = state_file(home)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: unreadable ({exc}); fix it or run `graphforge project use NAME`") from exc
    name = data.get("current_project") if isinstance(data, dict) else None
    if not isinstance(name, str):
        raise ConfigError(f"{path}: no 'current_project' name; run `graphforge project use NAME`")
    return name


def write_current(home: Path, name: str) -> Path:
    """Record ``name`` as the current project (atomically: a reader never sees half a file)."""
    path = state_file(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(json.dumps({"current_project": check_name(name)}) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def exists(home: Path, name: str) -> bool:
    return name == DEFAULT or (project_dir(home, name) / "project.json").is_file()


def read_record(home: Path, name: str) -> ProjectRecord:
    """A named project's record; a missing or broken one is a one-line ConfigError saying what to run."""
    path = project_dir(home, name) / "project.json"
    try:
        record = ProjectRecord.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        raise ConfigError(f"no project {name!r} under {projects_root(home)}; create it with "
                          f"`graphforge project new {name}` (`graphforge project list` shows them)") from None
    except (OSError, ValidationError) as exc:
        raise ConfigError(f"{path}: not a project record ({str(exc).splitlines()[0]})") from exc
    return record


def records(home: Path) -> list[ProjectRecord]:
    """Every named project under ``home``, by name (folders without a record are not projects)."""
    root = projects_root(home)
    if not root.is_dir():
        return []
    return [read_record(home, p.name) for p in sorted(root.iterdir())
            if _NAME.match(p.name) and (p / "project.json").is_file()]


def port_free(host: str, port: int) -> bool:
    """Whether nothing listens on ``host:port`` now (a bind succeeds)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def pick_ports(home: Path, host: str, base_bolt: int, base_http: int) -> tuple[int, int]:
    """The first (bolt, http) pair base + k * PORT_STEP (k >= 1) that no project recorded and is free."""
    taken = {base_bolt, base_http}
    for r in records(home):
        taken |= {r.bolt_port, r.http_port}
    for k in range(1, _MAX_STEPS + 1):
        bolt, http = base_bolt + k * PORT_STEP, base_http + k * PORT_STEP
        if max(bolt, http) > 65535:
            break
        if bolt in taken or http in taken or bolt == http:
            continue
        if port_free(host, bolt) and port_free(host, http):
            return bolt, http
    raise ConfigError(f"no free port pair found above {base_bolt}/{base_http}; pass --bolt-port and "
                      "--http-port")


@contextlib.contextmanager
def _lock(home: Path) -> Iterator[None]:
    """One process at a time creates projects (two at once could pick the same ports)."""
    root = projects_root(home)
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def create(home: Path, name: str, host: str, base_bolt: int, base_http: int,
           bolt_port: int | None = None, http_port: int | None = None) -> ProjectRecord:
    """Create a named project: pick (or take) its ports and write its record. It starts no server."""
    if check_name(name) == DEFAULT:
        raise ConfigError("'default' is the graph used without a project; pick another name")
    with _lock(home):
        if exists(home, name):
            raise ConfigError(f"project {name!r} exists already (`graphforge project show {name}`)")
        if bolt_port is None or http_port is None:
            picked = pick_ports(home, host, base_bolt, base_http)
            bolt_port = bolt_port if bolt_port is not None else picked[0]
            http_port = http_port if http_port is not None else picked[1]
        others = {p: r.name for r in records(home) for p in (r.bolt_port, r.http_port)}
        for port in (bolt_port, http_port):
            if port in others:
                raise ConfigError(f"port {port} is recorded by project {others[port]!r}; pick another")
        if bolt_port == http_port:
            raise ConfigError("the Bolt and HTTP ports must differ")
        record = ProjectRecord(name=name, bolt_port=bolt_port, http_port=http_port,
                               created=datetime.now(UTC).isoformat(timespec="seconds"))
        folder = project_dir(home, name)
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / ".project.json.tmp"
        tmp.write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")
        tmp.replace(folder / "project.json")
    return record
