"""Entry point of the `sluice` command.

Each command group lives in its own module under `app.cli` and exposes
`register(subparsers)`, adding its parser with `set_defaults(run=...)`; `run` takes the
parsed arguments and returns the process exit code.
"""

import argparse
import importlib
import sys
from collections.abc import Sequence

from app import log_setup

COMMAND_MODULES = (
    "app.cli.up",
    "app.cli.worker",
    "app.cli.api",
    "app.cli.localcluster",
    "app.cli.apps",
    "app.cli.events",
    "app.cli.repos",
    "app.cli.projects",
    "app.cli.accounts",
    "app.cli.clusters",
    "app.cli.login",
    "app.cli.health",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sluice", description="GitOps continuous delivery with Argo CD's semantics."
    )
    parser.add_argument("--log-level", default=None, help="debug, info, warning or error")
    parser.add_argument("--log-format", default=None, choices=("json", "console"))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    log_setup.configure(level=args.log_level, fmt=args.log_format)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
