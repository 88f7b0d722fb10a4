"""The chaos stack: everything Sluice runs on, each part something a fault can hit.

- NATS: a three-member JetStream cluster (R3 streams), members not advertised, so a
  worker sent through a proxy stays behind it;
- Redis on a fixed port, so a restart (empty: Redis is a cache) comes back where the
  workers look for it;
- the local cluster, in this process, with its fault switch (`faults`, `drop_watches`);
- the fleet's Git repository over HTTP with its own switch (`git.mode`);
- every worker kind as `replicas` processes; replica 0 of each kind reaches NATS through
  a `TcpProxy` of its own, which a partition cuts.

`Recorder` keeps what the invariants judge, straight from the local cluster's change log.
"""

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from app.embedded.nats import NatsCluster
from app.embedded.process import free_port
from app.embedded.redis import RedisOptions, RedisServer
from app.localcluster import LocalCluster
from app.localcluster.eventlog import ADDED, DELETED, Change
from tests.chaos import fleet
from tests.chaos.gitserver import GitHttpServer
from tests.chaos.invariants import ObjectKey, Observed, not_converged
from tests.chaos.proxy import TcpProxy
from tests.chaos.workers import WorkerFleet
from tests.support.fixtures_cluster import cluster_settings
from tests.support.gitrepo import GitRepo
from tests.support.waiting import eventually

CONTROLLER_DELAY = 0.2
"""Seconds the simulated controllers take (a rollout, a Job) in the chaos cluster."""
KINDS = ("watcher", "render", "compare", "sync", "hooks", "poller")
"""The worker kinds a fleet sync goes through (notifications and Kubernetes Events only
report on it, and nothing in the trial asks them to)."""
FIRST_SYNC_DEADLINE = 300.0
"""Seconds the fleet has to sync its first generation once every worker runs."""
REPO_ERROR_GRACE = 600.0
"""The workers' repository-error grace period: longer than any Git fault of a trial."""


@dataclass
class Recorder:
    """Hook Job creations, deletions and operation states seen since `reset`."""

    namespaces: set[str]
    hook_creations: list[ObjectKey] = field(default_factory=list)
    deletions: list[ObjectKey] = field(default_factory=list)
    operations: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def reset(self) -> None:
        self.hook_creations.clear()
        self.deletions.clear()
        self.operations.clear()

    def __call__(self, change: Change) -> None:
        obj = change.obj
        meta = obj.get("metadata") or {}
        namespace, name, kind = (
            str(meta.get("namespace") or ""),
            str(meta.get("name")),
            obj.get("kind"),
        )
        if kind == "Application" and namespace == fleet.CONTROL:
            state = (obj.get("status") or {}).get("operationState")
            seen = self.operations.setdefault(name, [])
            if state and (not seen or seen[-1] != state):
                seen.append(state)
            return
        if namespace not in self.namespaces:
            return
        if change.type == ADDED and kind == "Job":
            self.hook_creations.append((namespace, "Job", name))
        elif change.type == DELETED:
            self.deletions.append((namespace, str(kind), name))


@dataclass
class Stack:
    apps: int
    nats: NatsCluster
    redis_servers: list[RedisServer]
    """The one Redis server (a list: a restart replaces it, and the stack stops the newest)."""
    redis_options: RedisOptions
    cluster: LocalCluster
    repo: GitRepo
    git: GitHttpServer
    proxies: dict[str, TcpProxy]
    workers: WorkerFleet
    recorder: Recorder
    replicas: int
    generation: int = 1

    @property
    def redis_url(self) -> str:
        return self.redis_servers[0].url

    def kill_redis(self) -> None:
        self.redis_servers[0].kill()

    def start_redis(self) -> None:
        self.redis_servers[0] = RedisServer.start(self.redis_options)

    def applications(self) -> dict[str, Any]:
        return {
            app["metadata"]["name"]: app
            for app in self.cluster.objects("applications.argoproj.io", fleet.CONTROL)
        }

    def live(self) -> dict[ObjectKey, Any]:
        found: dict[ObjectKey, Any] = {}
        for resource in ("configmaps", "services", "deployments.apps", "jobs.batch"):
            for name in fleet.names(self.apps):
                for obj in self.cluster.objects(resource, name):
                    found[(name, obj["kind"], obj["metadata"]["name"])] = obj
        return found


async def _create(cluster: LocalCluster, path: str, body: dict[str, Any]) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.post(cluster.url + path, json=body) as reply,
    ):
        if reply.status not in (200, 201, 409):
            raise AssertionError(f"POST {path}: {reply.status} {await reply.text()}")


async def _synced(stack: Stack, revision: str) -> bool:
    seen = Observed(revision=revision, apps=stack.applications(), declared={}, live={})
    return len(seen.apps) == stack.apps and not not_converged(seen)


@contextlib.asynccontextmanager
async def open_stack(tmp: Path, apps: int, replicas: int = 2) -> AsyncIterator[Stack]:
    """The whole stack with the fleet at generation 1, every worker running."""
    async with contextlib.AsyncExitStack() as exits:
        nats = NatsCluster.start(tmp / "nats", advertise=False)
        exits.callback(nats.stop)
        redis_options = RedisOptions(state_dir=tmp / "redis", port=free_port("127.0.0.1"))
        redis = [RedisServer.start(redis_options)]
        exits.callback(lambda: redis[0].stop())  # noqa: PLW0108 - the server a restart made
        cluster = await exits.enter_async_context(
            LocalCluster(cluster_settings(tmp / "cluster", delay_seconds=CONTROLLER_DELAY))
        )
        repo = GitRepo.create(tmp / "git" / "fleet")
        exits.callback(repo.close)
        repo.commit(fleet.repository(apps, 1), "generation 1")
        git = GitHttpServer(tmp / "git")
        await git.start()
        exits.push_async_callback(git.stop)
        members = [(o.host, o.port) for o in nats.options]
        proxies = {name: TcpProxy(members) for name in KINDS}
        for proxy in proxies.values():
            await proxy.start()
            exits.push_async_callback(proxy.stop)
        log_dir = tmp / "workers"
        log_dir.mkdir()
        workers = WorkerFleet(_environment(tmp, nats, redis_options, cluster), log_dir)
        for name, proxy in proxies.items():
            workers.extra_env[(name, 0)] = {"NATS_URL": proxy.url}
        stack = Stack(
            apps,
            nats,
            redis,
            redis_options,
            cluster,
            repo,
            git,
            proxies,
            workers,
            Recorder(set(fleet.names(apps))),
            replicas,
        )
        exits.push_async_callback(workers.close)
        stop_listening = cluster.events.listen(None, stack.recorder)
        exits.callback(stop_listening)
        await _create(cluster, "/api/v1/namespaces", {"metadata": {"name": fleet.CONTROL}})
        await asyncio.gather(*(workers.start(n, r) for n in KINDS for r in range(replicas)))
        for app in fleet.applications(apps, git.url("fleet")):
            await _create(
                cluster, f"/apis/argoproj.io/v1alpha1/namespaces/{fleet.CONTROL}/applications", app
            )
        await eventually(
            lambda: _synced(stack, repo.head),
            timeout=FIRST_SYNC_DEADLINE,
            interval=0.5,
            what=f"the fleet of {apps} apps synced at generation 1",
        )
        yield stack


def _environment(
    tmp: Path, nats: NatsCluster, redis: RedisOptions, cluster: LocalCluster
) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp),
        "NATS_URL": nats.urls,
        "REDIS_URL": f"redis://{redis.host}:{redis.port}/0",
        "KUBECONFIG": str(cluster.kubeconfig_path),
        "SLUICE_NAMESPACE": fleet.CONTROL,
        "SLUICE_STREAM_REPLICAS": "3",
        "SLUICE_ALLOW_LOCAL_REPOS": "true",
        "SLUICE_RESYNC_SECONDS": "30",
        "SLUICE_RESYNC_JITTER_SECONDS": "10",
        "SLUICE_GIT_POLL_SECONDS": "1",
        "SLUICE_REFS_CACHE_SECONDS": "0.5",
        "SLUICE_REPO_ERROR_GRACE_SECONDS": str(REPO_ERROR_GRACE),
        "SLUICE_CONCURRENCY": "8",
        "SLUICE_LOG_FORMAT": "json",
        "SLUICE_LOG_LEVEL": "info",
    }
