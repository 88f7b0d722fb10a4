"""`sluice localcluster`: the embedded Kubernetes-API-compatible cluster on its own.

Writes a kubeconfig for kubectl and other clients, keeps its objects in an optional
snapshot file, and stops cleanly on Ctrl-C or SIGTERM (saving the snapshot).
"""

import argparse
import asyncio
import signal
import sys
from pathlib import Path

from app import log
from app.localcluster import ControllerSettings, LocalCluster, LocalClusterSettings
from app.localcluster.snapshot import SnapshotError

logger = log.get("cli.localcluster")
DEFAULT_KUBECONFIG = Path(".sluice/localcluster/kubeconfig")


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must not be negative")
    return value


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = sub.add_parser(
        "localcluster",
        help="run the local Kubernetes-API-compatible cluster (for kubectl and Sluice)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any free)")
    parser.add_argument(
        "--kubeconfig",
        type=Path,
        default=DEFAULT_KUBECONFIG,
        help=f"where to write the kubeconfig (default {DEFAULT_KUBECONFIG})",
    )
    parser.add_argument(
        "--snapshot", type=Path, default=None, help="load objects from and save them to FILE"
    )
    parser.add_argument(
        "--delay",
        type=_non_negative,
        default=1.0,
        help="seconds simulated workloads take to become ready (default 1)",
    )
    parser.add_argument(
        "--no-controllers", action="store_true", help="do not simulate workload controllers"
    )
    parser.set_defaults(run=run)


def _fail(message: str, code: int = 1) -> int:
    print(f"sluice localcluster: {message}", file=sys.stderr)  # noqa: T201
    return code


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        return _fail(f"--port {args.port} is not a port (0-65535)", code=2)
    settings = LocalClusterSettings(
        host=args.host,
        port=args.port,
        kubeconfig_path=args.kubeconfig.resolve(),
        snapshot_path=args.snapshot.resolve() if args.snapshot else None,
        controllers=ControllerSettings(enabled=not args.no_controllers, delay_seconds=args.delay),
    )
    try:
        return asyncio.run(_serve(settings))
    except SnapshotError as e:
        return _fail(str(e))
    except OSError as e:
        return _fail(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}")


async def _serve(settings: LocalClusterSettings) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with LocalCluster(settings) as cluster:
        print(  # noqa: T201
            f"local cluster listening on {cluster.url}\n"
            f"export KUBECONFIG={cluster.kubeconfig_path}\n"
            "Ctrl-C stops it.",
            flush=True,
        )
        await stop.wait()
    return 0
