"""`sluice up`: the embedded default (local cluster, NATS, Redis, every worker, example apps).

Prints where everything listens, registers the example Applications (unless
`--no-examples`), follows every app to Synced + Healthy, then runs until Ctrl-C.
`--exit-when-synced` exits 0 once they are (1 after `--timeout`): the form CI uses.
"""

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from app import examples
from app.cli.output import warn
from app.cli.running import serve_forever
from app.cli.serve import metrics_endpoint
from app.cli.stack import Stack, StackOptions
from app.model.health import HealthStatusCode
from app.model.identity import AppRef
from app.model.sync import SyncStatusCode
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from app.runtime.system_settings import SettingsRefused

OUT = sys.stdout


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = sub.add_parser(
        "up",
        help="run Sluice on its embedded default",
        description="Start NATS, Redis, a local Kubernetes API, every worker and example apps.",
    )
    parser.add_argument("--state-dir", type=Path, default=Path(".sluice"), help="default .sluice")
    parser.add_argument("--namespace", default="sluice", help="control-plane namespace")
    parser.add_argument(
        "--application-namespaces",
        default="",
        help="comma-separated globs of further namespaces whose Applications are reconciled",
    )
    parser.add_argument("--cluster-port", type=int, default=0, help="local cluster API port")
    parser.add_argument("--nats-port", type=int, default=0, help="embedded NATS port")
    parser.add_argument(
        "--api-port",
        type=int,
        default=int(os.environ.get("SLUICE_API_PORT") or 8080),
        help="REST API and webhooks port (SLUICE_API_PORT, default 8080; 0: any free)",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=None,
        help="unauthenticated Prometheus metrics port (SLUICE_METRICS_PORT; default none; 0: any)",
    )
    parser.add_argument("--nats-url", default="", help="use this NATS (>= 2.12) instead")
    parser.add_argument("--redis-url", default="", help="use this Redis (or REDIS_URL) instead")
    parser.add_argument("--no-examples", action="store_true", help="do not add the example apps")
    parser.add_argument(
        "--plugins-dir",
        type=Path,
        default=Path(os.environ["SLUICE_PLUGINS_DIR"])
        if os.environ.get("SLUICE_PLUGINS_DIR")
        else None,
        help="Config Management Plugins, one <plugin>/plugin.yaml each (SLUICE_PLUGINS_DIR)",
    )
    parser.add_argument(
        "--controller-delay",
        type=float,
        default=1.0,
        help="seconds the local cluster takes to make workloads ready (default 1)",
    )
    parser.add_argument(
        "--exit-when-synced",
        action="store_true",
        help="exit 0 once every app is Synced and Healthy (1 after --timeout)",
    )
    parser.add_argument("--timeout", type=float, default=120.0, help="for --exit-when-synced")
    parser.set_defaults(run=run)


def stack_options(args: argparse.Namespace, env: Mapping[str, str]) -> StackOptions:
    """The stack `args` ask for, with the timings of the environment (`SLUICE_RESYNC_SECONDS`,
    `SLUICE_GIT_POLL_SECONDS`…, as `sluice worker` reads them); ValueError names a bad one."""
    metrics_port = args.metrics_port
    if metrics_port is None:
        endpoint = metrics_endpoint(env)
        metrics_port = endpoint.port if endpoint is not None else -1
    return StackOptions(
        state_dir=args.state_dir,
        namespace=args.namespace,
        application_namespaces=tuple(
            p.strip() for p in args.application_namespaces.split(",") if p.strip()
        ),
        cluster_port=args.cluster_port,
        nats_port=args.nats_port,
        api_port=args.api_port,
        metrics_port=metrics_port,
        nats_url=args.nats_url,
        redis_url=args.redis_url,
        controller_delay=args.controller_delay,
        timing=Settings.from_env(env).timing,
        plugins_dir=args.plugins_dir,
    )


def run(args: argparse.Namespace) -> int:
    try:
        options = stack_options(args, os.environ)
    except ValueError as e:
        warn(f"error: {e}")
        return 2
    try:
        return serve_forever(_up(options, args))
    except KeyboardInterrupt:
        return 130
    except SettingsRefused as e:
        warn(f"error: {e}")
        return 2


async def _up(options: StackOptions, args: argparse.Namespace) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    started = time.monotonic()
    async with Stack(options) as stack:
        assert stack.runtime is not None and stack.cluster is not None
        rt = stack.runtime
        _say(f"local cluster  {stack.cluster.url}   (KUBECONFIG={stack.kubeconfig})")
        _say(f"NATS           {stack.nats_url}")
        _say(f"Redis          {stack.redis_url}")
        _say(f"workers        {', '.join(w.name for w in stack.workers)}")
        if stack.api is not None:
            _say(f"API            {stack.api.url}   (token in {stack.state_dir}/api-token)")
            _say(f"               sluice app list --server {stack.api.url}")
            _say(f"web UI         {stack.api.url}/   (sign in with that token)")
        if stack.metrics is not None:
            _say(f"metrics        {stack.metrics.url}")
        await _ensure_namespace(rt, options.namespace)
        if not args.no_examples:
            repo_url = examples.ensure_repository(stack.state_dir / "examples")
            for doc in examples.applications(repo_url, options.namespace):
                await rt.control_plane.apply(doc)
            _say(f"example apps   {', '.join(examples.APPS)} from {repo_url}")
        _say(
            f"try            KUBECONFIG={stack.kubeconfig} kubectl get applications -n "
            f"{options.namespace}"
        )
        follow = asyncio.create_task(_follow(rt, started), name="up-follow")
        stopped = asyncio.create_task(stop.wait(), name="up-stop")
        try:
            if args.exit_when_synced:
                done, _ = await asyncio.wait(
                    {follow, stopped}, timeout=args.timeout, return_when=asyncio.FIRST_COMPLETED
                )
                if follow in done and follow.result():
                    return 0
                _say(f"not every app was Synced and Healthy within {args.timeout:g} s")
                return 1
            await stopped
            _say("stopping")
            return 0
        finally:
            for task in (follow, stopped):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task


async def _ensure_namespace(rt: Runtime, namespace: str) -> None:
    await rt.control_plane.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
    )


async def _follow(rt: Runtime, started: float) -> bool:
    """Print each app's sync and health as they change; True once all are Synced + Healthy."""
    shown: dict[str, tuple[str, str]] = {}
    while True:
        names = await rt.apps.names()
        healthy = 0
        for namespace, name in names:
            stored = await rt.status.read_status(AppRef(namespace, name))
            sync = stored.status.sync.status if stored else SyncStatusCode.UNKNOWN
            health = stored.status.health.status if stored else HealthStatusCode.UNKNOWN
            now = (sync.value, health.value)
            if shown.get(name) != now:
                shown[name] = now
                _say(f"{time.monotonic() - started:6.1f}s  {name:<14} {now[0]:<10} {now[1]}")
            if sync is SyncStatusCode.SYNCED and health is HealthStatusCode.HEALTHY:
                healthy += 1
        if names and healthy == len(names):
            _say(
                f"all {len(names)} apps Synced and Healthy after {time.monotonic() - started:.1f} s"
            )
            return True
        await asyncio.sleep(0.5)


def _say(text: str) -> None:
    print(text, file=OUT, flush=True)
