"""`sluice worker <name>`: one worker against external NATS, Redis and clusters.

The production shape: each worker is its own Deployment, scaled horizontally. Settings
come from the environment (NATS_URL, REDIS_URL, KUBECONFIG or the pod's service account,
SLUICE_*; see app/runtime/settings.py; SLUICE_METRICS_PORT serves its metrics); the process
stops cleanly on SIGTERM or SIGINT.
"""

import argparse
import functools

from app.cli.serve import serve
from workers import registry


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = sub.add_parser("worker", help="run one worker (production)")
    parser.add_argument("name", choices=registry.WORKERS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    return serve(args.name, functools.partial(registry.build, args.name))
