"""The fleet benchmarks' command line and shared figures (`pipeline_scale`, `pipeline_resync`).

`run_fleet` parses the options every fleet benchmark takes (apps, resources, replicas,
concurrency, timeout, log level, a directory to keep), runs the benchmark and prints why
it gave up when it did; the rest turns process usage and the local cluster's request
counts into report lines.
"""

import argparse
import asyncio
import os
import sys
from collections.abc import Callable, Coroutine
from typing import Any, Generic, NamedTuple, TypeVar

from app import log_setup
from bench.support.figures import Line
from bench.support.fleet import WORKERS, FleetOptions
from bench.support.options import new_directory, positive
from bench.support.processes import Usage

R = TypeVar("R")
MIN_TIMEOUT = 600.0
SECONDS_PER_APP = 1.2
"""The default `--timeout` per app: a 1,000-app deployment took ten minutes at load 10 on
2 cores, so a 4,000-app one gets 80 minutes before the benchmark gives up."""


def replicas(text: str) -> dict[str, int]:
    """`compare=2,sync=2` -> {"compare": 2, "sync": 2}."""
    found = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, count = part.partition("=")
        if name not in WORKERS or not count.isdigit() or int(count) < 1:
            raise argparse.ArgumentTypeError(
                f"{part!r}: expected NAME=COUNT with NAME one of {', '.join(WORKERS)} "
                "and COUNT at least 1"
            )
        found[name] = int(count)
    return found


def app_counts(text: str) -> list[int]:
    """`250,1000,4000` -> [250, 1000, 4000]: one fleet run per count (a scaling curve)."""
    counts = [positive(part.strip()) for part in text.split(",") if part.strip()]
    if not counts:
        raise argparse.ArgumentTypeError(f"{text!r}: expected COUNT or COUNT,COUNT,...")
    return counts


def options_parser(prog: str, description: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument(
        "--apps",
        type=app_counts,
        default=[1000],
        help="apps to deploy; several (250,1000,4000) run one fleet each, as a scaling curve",
    )
    parser.add_argument("--resources", type=positive, default=10, help="objects per app")
    parser.add_argument(
        "--replicas", type=replicas, default={}, help="worker processes, e.g. compare=2,sync=2"
    )
    parser.add_argument(
        "--concurrency", type=positive, default=16, help="handlers per worker process"
    )
    parser.add_argument(
        "--timeout",
        type=positive,
        help=f"give up on a deployment after (seconds; default {SECONDS_PER_APP:g} per app, "
        f"at least {MIN_TIMEOUT:g})",
    )
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=("debug", "info", "warning", "error"),
        help="the workers' log level",
    )
    parser.add_argument(
        "--keep",
        type=new_directory,
        help="work in this new directory and keep it (logs, repository)",
    )
    return parser


def fleet_options(args: argparse.Namespace, apps: int) -> FleetOptions:
    return FleetOptions(
        apps=apps,
        resources=args.resources,
        replicas=args.replicas,
        concurrency=args.concurrency,
        timeout=args.timeout or max(MIN_TIMEOUT, SECONDS_PER_APP * apps),
        log_level=args.log_level,
        keep=args.keep / str(apps) if args.keep and len(args.apps) > 1 else args.keep,
    )


class FleetRuns(NamedTuple, Generic[R]):
    """What a fleet benchmark measured: one result per `--apps` count it got through."""

    args: argparse.Namespace
    ran: list[tuple[FleetOptions, R]]
    gave_up: bool
    """A later count gave up (the reason printed): `ran` holds the counts before it."""


def run_fleet(
    name: str,
    argv: list[str],
    description: str | None,
    run: Callable[[FleetOptions], Coroutine[Any, Any, R]],
) -> FleetRuns[R] | None:
    """The options and, for each `--apps` count, the fleet it describes and what `run`
    measured on it, up to the first count that gave up (its reason printed); None when
    the first one did."""
    args = options_parser(f"python -m bench {name}", description).parse_args(argv)
    log_setup.configure(level="warning")
    ran = []
    for apps in args.apps:
        options = fleet_options(args, apps)
        try:
            ran.append((options, asyncio.run(run(options))))
        except (TimeoutError, RuntimeError) as e:
            print(f"{name}: {apps} apps: {e}", file=sys.stderr)
            return FleetRuns(args, ran, gave_up=True) if ran else None
    return FleetRuns(args, ran, gave_up=False)


def usage_lines(before: dict[str, Usage], after: dict[str, Usage]) -> list[Line]:
    """CPU seconds used between two readings and peak RSS, per process group."""
    lines = []
    for name, now in after.items():
        cpu = now.cpu_seconds - before[name].cpu_seconds
        lines.append(
            Line(f"  {name}", f"{cpu:7.1f} CPU s, peak RSS {now.peak_rss_bytes >> 20} MiB")
        )
    return lines


def difference(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """Requests by verb between two readings of the local cluster's counts."""
    return {verb: n - before.get(verb, 0) for verb, n in after.items() if n != before.get(verb, 0)}


def all_processes(before: dict[str, Usage], after: dict[str, Usage]) -> str:
    """CPU of the workers and the servers together, and the wall time it takes at least."""
    used = sum(
        after[name].cpu_seconds - before[name].cpu_seconds
        for name in after
        if name not in WORKERS  # each worker is in "workers (all)" already
    )
    cores = os.cpu_count() or 1
    return (
        f"{used:.1f} s (workers, NATS, Redis, local cluster): at least {used / cores:.1f} s "
        f"of wall time on {cores} otherwise idle cores"
    )


def verbs(requests: dict[str, int]) -> str:
    return ", ".join(f"{verb} {n}" for verb, n in sorted(requests.items())) or "none"
