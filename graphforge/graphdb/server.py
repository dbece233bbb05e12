"""The project-managed local Neo4j: fetch from Maven Central, configure, start, stop, report.

Layout: the server jars are cached once per version under ``<cache_dir>/neo4j-<version>/lib``; each
instance lives under ``<home>/neo4j`` (conf, data, logs, run) with its generated password in
``credentials.json`` (mode 0600).

Lifecycle under races: ``start`` and ``stop`` hold an exclusive lock (``fcntl.flock`` on
``<home>/neo4j/lifecycle.lock``, released by the kernel if the holder dies), so two simultaneous starts
give one server and the second simply finds it. The server is found by its pid file, else by the
store lock its JVM holds on ``data/databases/store_lock`` (``/proc/locks``), else by the process
listening on the Bolt port whose command line names this home; a pid file found missing is
rewritten atomically (temporary file + rename).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

import httpx
import neo4j
from neo4j.exceptions import AuthError, DriverError, Neo4jError, ServiceUnavailable

from graphforge.errors import ConfigError, GraphConnectionError, ServerError
from graphforge.settings import GraphforgeSettings

# The driver logs connection failures ("Unable to retrieve routing information") through logging's
# last-resort handler, a second stderr line beside the one-line error open_driver raises; a handler
# of our own keeps them out unless the application configures logging.
logging.getLogger("neo4j").addHandler(logging.NullHandler())

_FILES = Path(__file__).resolve().parent / "server_files"
_BOOT = "org.neo4j.server.startup.Neo4jCommand"
_AUTH_ITERATIONS = 1024  # what neo4j-admin writes into auth.ini
# Neo4j's answer while it locks a user out after failed logins (dbms.security.auth_max_failed_attempts,
# 3 by default) for dbms.security.auth_lock_time (5 s by default).
_LOCKED_OUT = "Neo.ClientError.Security.AuthenticationRateLimit"
_DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies"


@dataclass(frozen=True)
class ServerInfo:
    """Where to reach a Neo4j server and how to log in."""

    uri: str
    user: str
    password: str
    database: str
    managed: bool
    browser_url: str | None = None

    @property
    def auth(self) -> tuple[str, str]:
        return (self.user, self.password)


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    managed: bool
    uri: str
    browser_url: str | None
    version: str | None
    edition: str | None
    pid: int | None
    home: str | None


class ManagedServer:
    """One project-managed Neo4j instance described by settings."""

    def __init__(self, settings: GraphforgeSettings) -> None:
        self.settings = settings
        self.home = settings.server_home
        self.lib = settings.cache_dir / f"neo4j-{settings.server_version}" / "lib"
        self.credentials = self.home / "credentials.json"
        self.pid_file = self.home / "run" / "neo4j.pid"
        self.lock_file = self.home / "lifecycle.lock"

    @property
    def bolt_uri(self) -> str:
        return f"bolt://{self.settings.listen_address}:{self.settings.bolt_port}"

    @property
    def http_url(self) -> str:
        return f"http://{self.settings.listen_address}:{self.settings.http_port}"

    @property
    def browser_url(self) -> str:
        return f"{self.http_url}/browser/"

    # -- fetching ---------------------------------------------------------------------------------

    def fetch(self) -> Path:
        """Download the server and Browser jars into the cache once; later calls are no-ops."""
        marker = self.lib.parent / "COMPLETE"
        if marker.exists():
            return self.lib
        mvn = shutil.which("mvn")
        if mvn is None:
            raise ServerError(
                "Maven (mvn) is needed to fetch Neo4j on first use; install it or set NEO4J_URI"
            )
        staging = self.lib.parent / "staging"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        pom = (_FILES / "pom.xml").read_text(encoding="utf-8")
        pom = pom.replace("@NEO4J_VERSION@", self.settings.server_version)
        pom = pom.replace("@BROWSER_VERSION@", self.settings.browser_version)
        (staging / "pom.xml").write_text(pom, encoding="utf-8")
        cmd = [mvn, "-B", "-q", "-f", str(staging / "pom.xml"), _DEPENDENCY_PLUGIN,
               "-DincludeScope=runtime", f"-DoutputDirectory={staging / 'lib'}"]
        # Run from the staging folder: Maven looks for a .mvn/ folder (JVM options, extensions) upward from
        # where it starts, and the current directory may be a crawled folder.
        env = {k: v for k, v in os.environ.items() if k != "MAVEN_BASEDIR"}
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=staging, env=env)
        if proc.returncode != 0:
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
            raise ServerError(f"fetching Neo4j {self.settings.server_version} with Maven failed: "
                              + " | ".join(tail))
        shutil.rmtree(self.lib, ignore_errors=True)
        (staging / "lib").rename(self.lib)
        shutil.rmtree(staging, ignore_errors=True)
        marker.write_text(self.settings.server_version, encoding="utf-8")
        return self.lib

    # -- configuration ----------------------------------------------------------------------------

    def _write_config(self) -> None:
        conf = self.home / "conf"
        for sub in ("conf", "data", "logs", "run", "import", "plugins"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        for name in ("server-logs.xml", "user-logs.xml"):
            shutil.copyfile(_FILES / name, conf / name)
        s = self.settings
        values = {
            "server.default_listen_address": s.listen_address,
            "server.default_advertised_address": s.listen_address,
            "server.bolt.listen_address": f"{s.listen_address}:{s.bolt_port}",
            "server.bolt.advertised_address": f"{s.listen_address}:{s.bolt_port}",
            "server.http.listen_address": f"{s.listen_address}:{s.http_port}",
            "server.http.advertised_address": f"{s.listen_address}:{s.http_port}",
            "server.https.enabled": "false",
            "dbms.security.auth_enabled": "true",
            "server.memory.heap.initial_size": s.heap_size,
            "server.memory.heap.max_size": s.heap_size,
            "server.memory.pagecache.size": s.pagecache_size,
            "server.directories.lib": str(self.lib),
            "server.directories.data": str(self.home / "data"),
            "server.directories.logs": str(self.home / "logs"),
            "server.directories.run": str(self.home / "run"),
            "server.directories.import": str(self.home / "import"),
            "server.directories.plugins": str(self.home / "plugins"),
            "server.logs.config": str(conf / "server-logs.xml"),
            "server.logs.user.config": str(conf / "user-logs.xml"),
            "dbms.usage_report.enabled": "false",
        }
        lines = [f"{k}={v}" for k, v in values.items()]
        lines += [f"server.jvm.additional={flag}" for flag in (_FILES / "jvm-flags.txt").read_text().split()]
        (conf / "neo4j.conf").write_text("\n".join(lines) + "\n", encoding="utf-8")

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["NEO4J_HOME"] = str(self.home)
        env["NEO4J_CONF"] = str(self.home / "conf")
        java_home = _java_home()
        if java_home:
            env["JAVA_HOME"] = java_home
        return env

    def _java(self, main_class: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        java = _java_binary()
        cmd = [java, "-cp", f"{self.lib}/*", main_class, *args]
        try:
            return subprocess.run(cmd, capture_output=True, text=True, env=self._env(), timeout=timeout,
                                  check=False, cwd=self.home)
        except subprocess.TimeoutExpired as exc:
            raise ServerError(f"{main_class} {' '.join(args)} did not finish in {timeout:.0f}s") from exc

    def password(self, create: bool = False) -> str:
        """The instance's generated password (created on first start only)."""
        if self.credentials.exists():
            data = json.loads(self.credentials.read_text(encoding="utf-8"))
            return str(data["password"])
        if not create:
            raise ConfigError(
                f"no managed Neo4j has been set up under {self.home}; run `graphforge db start`"
            )
        password = generate_password()
        self.home.mkdir(parents=True, exist_ok=True)
        # Created with owner-only permissions from the first byte, never world-readable.
        fd = os.open(self.credentials, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"user": "neo4j", "password": password}, fh)
        return password

    def _initialise(self) -> None:
        """Set the generated password before the very first start (Neo4j only accepts it then)."""
        if (self.home / "data" / "dbms").exists() and self.credentials.exists():
            return
        if (self.home / "data" / "dbms").exists():
            raise ServerError(f"{self.home} holds a database but its credentials.json is gone; "
                              "remove the folder to start over")
        self._write_initial_auth(self.password(create=True))

    def _write_initial_auth(self, password: str) -> None:
        """What ``neo4j-admin dbms set-initial-password`` does, without the password on any command line
        (where every local user can read it in /proc): write ``data/dbms/auth.ini``, which Neo4j 5 reads
        on its very first start, owner-only. The line is ``neo4j:SHA-256,<hash>,<salt>,<iterations>:``
        with the hash as the admin tool computes it: SHA-256 of salt + password, re-hashed to
        ``iterations`` rounds (checked against the tool's own output for Neo4j 5.26)."""
        salt = secrets.token_bytes(32)
        digest = hashlib.sha256(salt + password.encode("utf-8")).digest()
        for _ in range(_AUTH_ITERATIONS - 1):
            digest = hashlib.sha256(digest).digest()
        line = f"neo4j:SHA-256,{digest.hex()},{salt.hex()},{_AUTH_ITERATIONS}:\n"
        auth = self.home / "data" / "dbms" / "auth.ini"
        auth.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(auth, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(line)

    # -- lifecycle --------------------------------------------------------------------------------

    @contextlib.contextmanager
    def lifecycle_lock(self, timeout_s: float | None = None) -> Iterator[None]:
        """Exclusive lock around start/stop: one process at a time changes this server's state."""
        self.home.mkdir(parents=True, exist_ok=True)
        wait = timeout_s if timeout_s is not None else self.settings.start_timeout_s + 240
        fd = os.open(self.lock_file, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            deadline = time.monotonic() + wait
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
                        raise ServerError(
                            f"another graphforge process (pid {holder}) is starting or stopping the Neo4j "
                            f"in {self.home}; wait for it or try again"
                        ) from None
                    time.sleep(0.2)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            yield
        finally:
            os.close(fd)  # closing drops the flock

    def pid(self) -> int | None:
        """The server's pid: from its pid file when that names a live process, else found by the store
        lock its JVM holds or by the Bolt port (the pid file is then rewritten); None when not running."""
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            pid = None
        if pid is not None and pid_alive(pid) and self._is_ours(pid):
            return pid
        found = self._find_running()
        if found is None:
            self.pid_file.unlink(missing_ok=True)
            return None
        _write_atomically(self.pid_file, f"{found}\n")
        return found

    def _is_ours(self, pid: int) -> bool:
        """Whether ``pid`` is a Neo4j JVM of this home (a recycled pid in a stale file is not)."""
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return True  # no /proc to check against (not Linux): trust the live pid
        return f"--home-dir={self.home}".encode() in cmdline

    def _find_running(self) -> int | None:
        for pid in (_lock_holder(self.home / "data" / "databases" / "store_lock"),
                    _port_listener(self.settings.bolt_port)):
            if pid is not None and pid_alive(pid) and self._is_ours(pid):
                return pid
        return None

    def start(self) -> ServerInfo:
        """Fetch, configure and start the server, then wait until Bolt answers. Idempotent and safe to
        call from several processes at once: they queue on the lifecycle lock and later ones find the
        server the first one started."""
        with self.lifecycle_lock():
            if self.pid() is not None:
                self.wait_ready()
                return self.info()
            for port in (self.settings.bolt_port, self.settings.http_port):
                _require_free_port(self.settings.listen_address, port)
            self.fetch()
            self._write_config()
            self._initialise()
            try:
                proc = self._java(_BOOT, "start", timeout=max(120.0, self.settings.start_timeout_s))
            except ServerError:
                # A slow machine can keep the launcher past its timeout after it forked the server;
                # a server that is there is waited for, not reported as a failed start.
                if self.pid() is None:
                    raise
            else:
                if proc.returncode != 0:
                    raise ServerError(f"Neo4j did not start: {_last_line(proc)} (see {self.home / 'logs'})")
            self.wait_ready()
            return self.info()

    def wait_ready(self) -> None:
        deadline = time.monotonic() + self.settings.start_timeout_s
        last: Exception | None = None
        while time.monotonic() < deadline:
            if self.pid() is None:
                raise ServerError(f"Neo4j exited during start-up; see {self.home / 'logs' / 'neo4j.log'}")
            try:
                with neo4j.GraphDatabase.driver(self.bolt_uri, auth=("neo4j", self.password()),
                                                notifications_min_severity="OFF") as drv:
                    drv.verify_connectivity()
                    drv.execute_query("RETURN 1", database_="neo4j")
                return
            except (ServiceUnavailable, DriverError, Neo4jError, OSError) as exc:
                if isinstance(exc, AuthError):
                    raise GraphConnectionError("the managed Neo4j refused its stored password; "
                                               f"remove {self.home} to start over") from exc
                last = exc
                time.sleep(0.5)
        raise ServerError(f"Neo4j did not answer on {self.bolt_uri} within "
                          f"{self.settings.start_timeout_s:.0f}s: {last}")

    def stop(self) -> bool:
        """Stop the server cleanly (found by pid file, store lock or port); True when one was running."""
        with self.lifecycle_lock():
            pid = self.pid()
            if pid is None:
                return False
            try:
                stopped_cleanly = self._java(_BOOT, "stop", timeout=180).returncode == 0
            except ServerError:  # the stop command hung: signals below finish the job
                stopped_cleanly = False
            if pid_alive(pid):
                if stopped_cleanly:
                    _wait_gone(pid, 30)
                if pid_alive(pid):
                    os.kill(pid, signal.SIGTERM)
                    if not _wait_gone(pid, 60):
                        os.kill(pid, signal.SIGKILL)
                        _wait_gone(pid, 10)
            self.pid_file.unlink(missing_ok=True)
            return True

    def info(self) -> ServerInfo:
        return ServerInfo(self.bolt_uri, "neo4j", self.password(), "neo4j", True, self.browser_url)

    def status(self) -> ServerStatus:
        pid = self.pid()
        version = edition = None
        if pid is not None:
            with contextlib.suppress(httpx.HTTPError, ValueError):
                discovery = httpx.get(self.http_url + "/", timeout=5).json()
                version, edition = discovery.get("neo4j_version"), discovery.get("neo4j_edition")
        return ServerStatus(pid is not None, True, self.bolt_uri, self.browser_url, version, edition, pid,
                            str(self.home))


def resolve(settings: GraphforgeSettings, start: bool = True) -> ServerInfo:
    """Connection details: the configured external Neo4j, else the managed one (started if asked).

    Credentials written into NEO4J_URI (``neo4j://user:password@host``) are taken out of it: the URI
    kept and shown everywhere afterwards carries none, and NEO4J_USER / NEO4J_PASSWORD win over them.
    """
    if settings.neo4j_uri is not None:  # an external Neo4j (settings.managed is False)
        uri, uri_user, uri_password = split_uri_credentials(settings.neo4j_uri)
        password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else uri_password
        if password is None:
            raise ConfigError("NEO4J_URI is set but NEO4J_PASSWORD is not")
        user = settings.neo4j_user if "neo4j_user" in settings.model_fields_set or not uri_user else uri_user
        return ServerInfo(uri, user, password, settings.neo4j_database, False, None)
    server = ManagedServer(settings)
    return server.start() if start else server.info()


def split_uri_credentials(uri: str) -> tuple[str, str | None, str | None]:
    """(the URI without user:password@, the user, the password) from a URI that may hold them."""
    try:
        parts = urlsplit(uri)
        if "@" not in parts.netloc:
            return uri, None, None
        userinfo, _, hostport = parts.netloc.rpartition("@")
        user, sep, password = userinfo.partition(":")
        clean = urlunsplit((parts.scheme, hostport, parts.path, parts.query, parts.fragment))
        return clean, unquote(user) or None, unquote(password) if sep else None
    except ValueError:
        return redact_uri(uri), None, None


def redact_uri(uri: str) -> str:
    """``uri`` fit for a message or a log: any user:password@ part replaced by ***@."""
    return re.sub(r"(?<=//)[^/?#]*@", "***@", uri)


def _scrub(text: str, info: ServerInfo) -> str:
    """A driver's error text without the password, should the driver have echoed it."""
    return text.replace(info.password, "***") if info.password else text


def open_driver(info: ServerInfo) -> neo4j.Driver:
    """A verified driver, with connection problems turned into one-line errors (never holding a secret)."""
    shown = redact_uri(info.uri)
    try:
        driver = neo4j.GraphDatabase.driver(info.uri, auth=info.auth, notifications_min_severity="OFF")
    except (ValueError, DriverError) as exc:
        raise ConfigError(f"invalid Neo4j URI {shown!r}: {_scrub(redact_uri(str(exc)), info)}") from None
    try:
        driver.verify_connectivity()
    except AuthError as exc:
        driver.close()
        raise GraphConnectionError(f"Neo4j at {shown} refused the login for user {info.user!r}; "
                                   "check NEO4J_USER / NEO4J_PASSWORD") from exc
    except (ServiceUnavailable, DriverError, Neo4jError, OSError) as exc:
        driver.close()
        if isinstance(exc, Neo4jError) and exc.code == _LOCKED_OUT:
            raise GraphConnectionError(
                f"Neo4j at {shown} has locked user {info.user!r} out after too many failed logins; try "
                "again in 5 seconds (the server's dbms.security.auth_lock_time, 5 s unless configured), "
                "with the right NEO4J_USER / NEO4J_PASSWORD"
            ) from exc
        hint = "start it with `graphforge db start`" if info.managed else "check NEO4J_URI"
        raise GraphConnectionError(f"Neo4j is not reachable at {shown}; {hint}") from exc
    return driver


def generate_password() -> str:
    """32 URL-safe characters starting with a letter or digit (a leading '-' reads as an option to
    any tool the password is ever typed into)."""
    while True:
        password = secrets.token_urlsafe(24)
        if password[0].isalnum():
            return password


def _require_free_port(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise ServerError(f"port {host}:{port} is already in use by another program; stop it or set "
                              "GRAPHFORGE_BOLT_PORT / GRAPHFORGE_HTTP_PORT") from exc


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still answers kill(0); treat it as gone.
    with contextlib.suppress(OSError):
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        return state != "Z"
    return True


def _wait_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.25)
    return True


def _write_atomically(path: Path, text: str) -> None:
    """Readers see the old file or the whole new one, never a partial or empty one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="ascii") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _lock_holder(lock_path: Path) -> int | None:
    """The pid holding a POSIX or flock lock on ``lock_path``, from /proc/locks (Linux)."""
    try:
        st = os.stat(lock_path)
        locks = Path("/proc/locks").read_text()
    except OSError:
        return None
    want = (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
    for line in locks.splitlines():
        fields = line.split()
        if "->" in fields:  # a blocked waiter, not the holder
            continue
        try:
            pid, where = int(fields[4]), fields[5].split(":")
            found = (int(where[0], 16), int(where[1], 16), int(where[2]))
        except (IndexError, ValueError):
            continue
        if found == want:
            return pid
    return None


def _port_listener(port: int) -> int | None:
    """The pid of the process listening on TCP ``port`` (any address), from /proc/net (Linux)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    if not inodes:
        return None
    wanted = {f"socket:[{inode}]" for inode in inodes}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                if os.readlink(fd) in wanted:
                    return int(entry.name)
        except OSError:
            continue
    return None


def _java_home() -> str | None:
    if os.environ.get("JAVA_HOME"):
        return os.environ["JAVA_HOME"]
    for candidate in ("/usr/lib/jvm/java-17-openjdk-amd64", "/usr/lib/jvm/java-21-openjdk-amd64"):
        if Path(candidate, "bin", "java").exists():
            return candidate
    return None


def _java_binary() -> str:
    home = _java_home()
    java = str(Path(home, "bin", "java")) if home else shutil.which("java")
    if not java or not Path(java).exists():
        raise ServerError("Java 17 or 21 is needed to run the managed Neo4j; install it or set JAVA_HOME")
    return java


def _last_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
    return lines[-1] if lines else f"exit status {proc.returncode}"
