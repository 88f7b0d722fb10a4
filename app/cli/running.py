"""Running a command: its coroutine under asyncio, failures reported as one line and a code."""

import argparse
import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from app.cli.client import ERROR, CliError
from app.cli.output import warn

Command = Callable[[argparse.Namespace], Coroutine[Any, Any, int]]


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
