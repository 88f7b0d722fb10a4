"""`sluice up`: the embedded default (local cluster, NATS, Redis, every worker, example apps)."""

import argparse
import sys


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = sub.add_parser("up", help="run Sluice on its embedded default")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    print("sluice up: not yet: the event pipeline lands with issue 4", file=sys.stderr)  # noqa: T201
    return 1
