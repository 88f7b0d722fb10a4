"""Running a command: its coroutine under asyncio, failures reported as one line and a code.

Long-running processes (`sluice up`, `sluice worker`) run on uvloop (`serve_forever`):
the same worker-shaped round trips (a JetStream publish, Redis pipelines) cost about 12 %
less CPU there than on asyncio's own loop (`python -m bench event_loop`); short commands
keep asyncio's loop, whose start is cheaper.
"""

import argparse
import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import uvloop

from app.cli.client import ERROR, CliError
from app.cli.output import warn

Command = Callable[[argparse.Namespace], Coroutine[Any, Any, int]]


def serve_forever(main: Coroutine[Any, Any, int]) -> int:
    """Run a long-running process's coroutine on uvloop; its exit code."""
    return uvloop.run(main)


def runner(command: Command) -> Callable[[argparse.Namespace], int]:
    """`set_defaults(run=runner(coro))`: run it, print a CliError's message, return the code."""

    def run(args: argparse.Namespace) -> int:
        try:
            return asyncio.run(command(args))
        except CliError as e:
            warn(f"error: {e.message}")
            return e.code
        except KeyboardInterrupt:
            return 130
        except OSError as e:
            warn(f"error: {e}")
            return ERROR

    return run
