"""Entry point of the `sluice` command.

Each command group lives in its own module under `app.cli` and exposes
`register(subparsers)`, adding its parser with `set_defaults(run=...)`; `run` takes the
parsed arguments and returns the process exit code. Only the module of the command being
run is imported (the server commands pull in the whole runtime, a second of CPU); `--help`
and an unknown command import them all.
"""

import argparse
import importlib
import sys
from collections.abc import Sequence

from app import log_setup

COMMANDS = {
    "up": "app.cli.up",
    "worker": "app.cli.worker",
    "api": "app.cli.api",
    "localcluster": "app.cli.localcluster",
    "app": "app.cli.apps",
    "events": "app.cli.events",
    "repo": "app.cli.repos",
    "repocreds": "app.cli.repos",
    "proj": "app.cli.projects",
    "account": "app.cli.accounts",
    "cluster": "app.cli.clusters",
    "login": "app.cli.login",
    "logout": "app.cli.login",
    "context": "app.cli.login",
    "health": "app.cli.health",
}
COMMAND_MODULES = tuple(dict.fromkeys(COMMANDS.values()))
_OPTIONS_WITH_VALUE = ("--log-level", "--log-format")


def _command_word(argv: Sequence[str]) -> str:
    """The first argument that is not a global option (or its value)."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in _OPTIONS_WITH_VALUE:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return ""


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for `argv`'s command only, or for every command when `argv` is None."""
    parser = argparse.ArgumentParser(
        prog="sluice", description="GitOps continuous delivery with Argo CD's semantics."
    )
    parser.add_argument("--log-level", default=None, help="debug, info, warning or error")
    parser.add_argument("--log-format", default=None, choices=("json", "console"))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    module = COMMANDS.get(_command_word(argv)) if argv is not None else None
    for name in (module,) if module else COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(words).parse_args(words)
    log_setup.configure(level=args.log_level, fmt=args.log_format)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
