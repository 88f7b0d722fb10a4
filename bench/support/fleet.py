"""Many apps on workers in separate processes: the shape of the scale and resync benchmarks.

`Fleet.open(options)` starts, each in its own process: NATS and Redis (as `sluice
up` embeds them), the local cluster (`sluice localcluster`, controller delay 0) and the
workers (`sluice worker NAME`, `replicas` of each, settings from the environment, periodic
resync and Git polling off so that only the benchmark makes work). It writes the
workload's repository, opens a Runtime of its own for publishing and reading status, and
brings one warm-up app to Synced + Healthy, so that every worker has connected, imported
and warmed its caches before anything is measured.

Then `deploy()` registers every app and waits until all are Synced + Healthy; `usage()`
reads CPU seconds and peak RSS by process group; `request_counts()` reads the local
cluster's requests by verb; `traffic()` counts Redis commands by name and messages stored
in each JetStream stream; `wait_idle()` waits until the workers use no CPU.
"""

import asyncio
import contextlib
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import yaml

from app.bus import subjects
from app.bus.connection import NatsSettings
from app.embedded.nats import NatsOptions, NatsServer
from app.embedded.redis import RedisOptions, RedisServer
from app.model.identity import AppRef
from app.runtime.runtime import Runtime
from app.runtime.settings import ControlPlaneSettings, Settings
from app.store.connection import RedisSettings
from bench.support import status
from bench.support.processes import Child, Usage, total
from bench.support.workload import Workload, app_names

NAMESPACE = "sluice"
WARMUP = "warmup"
WORKERS = ("watcher", "render", "compare", "sync", "hooks")
"""The workers a fleet runs (the poller is off: the benchmarks make every refresh)."""
START_TIMEOUT = 60.0
APPLY_CONCURRENCY = 16
HTTP_TIMEOUT = aiohttp.ClientTimeout(total=10)
IDLE_CPU = 0.02
"""CPU seconds per second a worker process uses at most when it is idle."""


@dataclass(frozen=True, slots=True)
class FleetOptions:
    apps: int = 1000
    resources: int = 10
    replicas: dict[str, int] = field(default_factory=dict)
    """Processes per worker name (default 1 each)."""
    concurrency: int = 16
    """Handlers each worker process runs at once (`SLUICE_CONCURRENCY`)."""
    timeout: float = 600.0
    """Seconds a deployment may take before the benchmark gives up."""
    resync: float = 0.0
    """Seconds between two periodic resyncs of each app (`SLUICE_RESYNC_SECONDS`); 0: off."""
    resync_jitter: float = 0.0
    """Up to this many seconds added at random to each resync (`SLUICE_RESYNC_JITTER_SECONDS`)."""
    log_level: str = "warning"
    """The workers' log level (their logs stay in the work directory's logs/)."""
    keep: Path | None = None
    """Work in this directory and keep it (logs, repository) instead of a temporary one."""

    def describe(self) -> str:
        counts = ", ".join(f"{w} x{self.replicas.get(w, 1)}" for w in WORKERS)
        return f"worker processes: {counts}; {self.concurrency} handlers each"


@dataclass
class Fleet:
    options: FleetOptions
    workload: Workload
    runtime: Runtime
    cluster_url: str
    kubeconfig: Path
    workers: dict[str, list[Child]]
    servers: dict[str, int]
    """pid of the NATS server, the Redis server and the local cluster, by name."""

    @property
    def apps(self) -> list[AppRef]:
        return [AppRef(NAMESPACE, name) for name in self.workload.apps if name != WARMUP]

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, options: FleetOptions) -> AsyncIterator["Fleet"]:
        with contextlib.ExitStack() as stack:
            if options.keep is not None:
                options.keep.mkdir(parents=True)
                workdir = options.keep.resolve()
            else:
                workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="sluice-")))
            names = (WARMUP, *app_names(options.apps))
            workload = Workload.create(workdir / "repo", names, options.resources)
            nats = stack.enter_context(NatsServer.start(NatsOptions(state_dir=workdir)))
            redis = stack.enter_context(RedisServer.start(RedisOptions(state_dir=workdir)))
            kubeconfig = workdir / "kubeconfig"
            serve = ["localcluster", "--port", "0", "--delay", "0", "--kubeconfig", str(kubeconfig)]
            cluster = stack.enter_context(
                _running(
                    Child("localcluster", serve, {"SLUICE_LOG_LEVEL": "warning"}, workdir / "logs")
                )
            )
            cluster_url = await _cluster_ready(cluster, kubeconfig)
            env = {
                "NATS_URL": nats.url,
                "REDIS_URL": redis.url,
                "KUBECONFIG": str(kubeconfig),
                "SLUICE_ALLOW_LOCAL_REPOS": "1",
                "SLUICE_RESYNC_SECONDS": str(options.resync),
                "SLUICE_RESYNC_JITTER_SECONDS": str(options.resync_jitter),
                "SLUICE_GIT_POLL_SECONDS": "0",
                "SLUICE_CONCURRENCY": str(options.concurrency),
                "SLUICE_LOG_LEVEL": options.log_level,
                "SLUICE_LOG_FORMAT": "json",
            }
            settings = Settings(
                nats=NatsSettings(url=nats.url, name="sluice-bench"),
                redis=RedisSettings(url=redis.url),
                control_plane=ControlPlaneSettings(namespace=NAMESPACE, kubeconfig=str(kubeconfig)),
                state_dir=workdir / "bench",
                allow_local_repos=True,
            )
            async with Runtime.open(settings) as rt:
                workers: dict[str, list[Child]] = {}
                for name in WORKERS:
                    for i in range(options.replicas.get(name, 1)):
                        state = {"SLUICE_STATE_DIR": str(workdir / f"{name}-{i}")}
                        child = Child(
                            f"{name}-{i}", ["worker", name], env | state, workdir / "logs"
                        )
                        stack.enter_context(_running(child))
                        workers.setdefault(name, []).append(child)
                fleet = cls(
                    options,
                    workload,
                    rt,
                    cluster_url,
                    kubeconfig,
                    workers,
                    {
                        "nats-server": nats.pid,
                        "redis-server": redis.pid,
                        "localcluster": cluster.pid,
                    },
                )
                await rt.control_plane.apply(
                    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
                )
                await fleet._register([AppRef(NAMESPACE, WARMUP)], within=START_TIMEOUT)
                yield fleet

    def check_running(self) -> None:
        for children in self.workers.values():
            for child in children:
                child.check_running()

    async def deploy(self) -> float:
        """Register every app and wait until all are Synced + Healthy; seconds it took."""
        started = time.perf_counter()
        await self._register(self.apps, within=self.options.timeout)
        return time.perf_counter() - started

    async def _register(self, apps: list[AppRef], *, within: float) -> None:
        queue = iter(apps)

        async def apply() -> None:
            for ref in queue:
                await self.runtime.control_plane.apply(
                    self.workload.application(ref.name, NAMESPACE)
                )

        await asyncio.gather(*(apply() for _ in range(APPLY_CONCURRENCY)))
        await self.wait(apps, status.AppState.settled(), within=within, what="Synced + Healthy")

    async def wait(
        self,
        apps: list[AppRef],
        done: status.Condition,
        *,
        within: float,
        what: str,
    ) -> dict[AppRef, status.AppState]:
        """`status.wait_until`, failing early with its log if a worker process died."""
        deadline = time.monotonic() + within
        while True:
            self.check_running()
            left = deadline - time.monotonic()
            try:
                return await status.wait_until(
                    self.runtime.redis, apps, done, within=min(5.0, left), what=what, interval=0.2
                )
            except TimeoutError:
                if left <= 5.0:
                    raise

    def usage(self) -> dict[str, Usage]:
        """CPU seconds and peak RSS so far: each worker name, its total, and each server."""
        found = {name: total([c.pid for c in children]) for name, children in self.workers.items()}
        found["workers (all)"] = total([c.pid for cs in self.workers.values() for c in cs])
        for name, pid in self.servers.items():
            found[name] = total([pid])
        return found

    def worker_cpu(self) -> float:
        return self.usage()["workers (all)"].cpu_seconds

    async def wait_idle(self, *, window: float = 1.0, below: float = IDLE_CPU) -> None:
        """Until the workers use under `below` CPU seconds per process in a `window` (an
        idle worker still renews leases and answers NATS pings)."""
        below *= sum(len(children) for children in self.workers.values())
        deadline = time.monotonic() + self.options.timeout
        before = self.worker_cpu()
        while time.monotonic() < deadline:
            await asyncio.sleep(window)
            now = self.worker_cpu()
            if now - before < below:
                return
            before = now
        raise TimeoutError(f"the workers were still busy after {self.options.timeout:g} s")

    async def traffic(self) -> dict[str, int]:
        """Redis commands served so far by name (`redis GET`, ...) and the messages each
        JetStream stream has taken (`nats SLUICE_WORK`, ...): counts a loaded machine does
        not move. The benchmark's own status reads are left out."""
        stats = await self.runtime.redis.info("commandstats")
        counts = {
            f"redis {name.removeprefix('cmdstat_').upper()}": int(value["calls"])
            for name, value in stats.items()
        }
        for name, sent in status.SENT.items():
            counts[f"redis {name}"] = counts.get(f"redis {name}", 0) - sent
        for stream in (subjects.WORK_STREAM, subjects.EVENTS_STREAM):
            info = await self.runtime.bus.js.stream_info(stream)
            counts[f"nats {stream}"] = info.state.last_seq
        return counts

    async def request_counts(self) -> dict[str, int]:
        """The local cluster's resource requests so far, by verb."""
        async with (
            aiohttp.ClientSession(timeout=HTTP_TIMEOUT) as http,
            http.get(f"{self.cluster_url}/localcluster/requests") as response,
        ):
            response.raise_for_status()
            counts: dict[str, int] = await response.json()
        return counts


@contextlib.contextmanager
def _running(child: Child) -> Iterator[Child]:
    try:
        yield child
    finally:
        child.stop()


def _server_url(kubeconfig: Path) -> str | None:
    """The server a kubeconfig points at, or None while it is not written yet."""
    try:
        doc = yaml.safe_load(kubeconfig.read_text())
    except FileNotFoundError:
        return None
    return str(doc["clusters"][0]["cluster"]["server"])


async def _cluster_ready(cluster: Child, kubeconfig: Path) -> str:
    """The local cluster's URL once its kubeconfig is written and it answers /readyz."""
    deadline = time.monotonic() + START_TIMEOUT
    async with aiohttp.ClientSession(timeout=HTTP_TIMEOUT) as http:
        while time.monotonic() < deadline:
            cluster.check_running()
            url = await asyncio.to_thread(_server_url, kubeconfig)
            if url is not None:
                with contextlib.suppress(aiohttp.ClientError):
                    async with http.get(f"{url}/readyz") as response:
                        if response.status == 200:
                            return url
            await asyncio.sleep(0.05)
    raise TimeoutError(f"the local cluster did not answer within {START_TIMEOUT:g} s")
