"""A real local Label Studio for the review round trip: started on a free 127.0.0.1 port with a generated
admin user, password and API token (never a default one), on its own SQLite database, stopped after.

Label Studio lives in its own virtual environment (``make install-review`` builds ``.venv-review``: its pins
conflict with ours, e.g. numpy and pyarrow). Its database migrations take one to two minutes, so they run
once into a template folder (``.graphforge/label-studio-template/<version>``) that each server copies.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("GRAPHFORGE_REVIEW_VENV", REPO / ".venv-review"))
TEMPLATES = REPO / ".graphforge" / "label-studio-template"
DB_FILE = "label_studio.sqlite3"


@dataclass(frozen=True)
class LabelStudio:
    url: str
    username: str
    password: str
    token: str
    data_dir: Path
    log: Path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def label_studio_bin() -> Path:
    path = VENV / "bin" / "label-studio"
    if not path.exists():
        raise RuntimeError(f"{path} is missing: run `make install-review` (Label Studio in its own venv)")
    return path


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LABEL_STUDIO_", "DJANGO_"))}
    env.update({"LABEL_STUDIO_BASE_DATA_DIR": str(data_dir), "HOME": str(data_dir),
                "SENTRY_DSN": "", "FRONTEND_SENTRY_DSN": "", "COLLECT_ANALYTICS": "false",
                "LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK": "true"})
    env.pop("VIRTUAL_ENV", None)
    return env


def _version() -> str:
    dist = next((VENV / "lib").glob("python3*/site-packages/label_studio-*.dist-info"), None)
    return dist.name.removesuffix(".dist-info").split("-")[1] if dist else "unknown"


def migrated_template() -> Path:
    """A data folder with Label Studio's database migrated and no user (built once per version)."""
    folder = TEMPLATES / _version()
    if (folder / DB_FILE).exists() and (folder / ".done").exists():
        return folder
    TEMPLATES.mkdir(parents=True, exist_ok=True)
    with (TEMPLATES / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".done").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            subprocess.run([str(label_studio_bin()), "init", "--quiet", "--data-dir", str(folder),
                            "--log-level", "ERROR"], env=_env(folder), cwd=folder, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900)
            (folder / ".done").write_text("migrated\n")
    return folder


@contextmanager
def running_label_studio(workdir: Path, timeout_s: float = 180) -> Iterator[LabelStudio]:
    """Start Label Studio on a copy of the migrated template; yield its URL and generated credentials."""
    data = workdir / "label-studio"
    shutil.copytree(migrated_template(), data)
    (data / ".done").unlink(missing_ok=True)
    port = free_port()
    user = f"reviewer-{secrets.token_hex(4)}@graphforge.test"
    password = secrets.token_urlsafe(18)
    token = secrets.token_hex(20)
    log = workdir / "label-studio.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [str(label_studio_bin()), "start", "--no-browser", "--data-dir", str(data), "--port", str(port),
             "--internal-host", "127.0.0.1", "--username", user, "--password", password,
             "--user-token", token, "--enable-legacy-api-token", "--log-level", "WARNING"],
            env=_env(data), cwd=data, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"Label Studio exited ({proc.returncode}): {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/api/current-user/whoami", headers={"Authorization": f"Token {token}"},
                             timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"Label Studio did not answer on {url} in {timeout_s:.0f}s: "
                                   f"{log.read_text()[-2000:]}")
            time.sleep(1)
        yield LabelStudio(url=url, username=user, password=password, token=token, data_dir=data, log=log)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 15)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait()
