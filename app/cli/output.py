"""What the CLI prints: tables for people (rich), JSON or YAML for scripts (`-o json|yaml`)."""

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import yaml
from rich.console import Console
from rich.table import Table

FORMATS = ("table", "json", "yaml")


def add_output_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", choices=FORMATS, default="table", help="default table")


def console(stream: TextIO | None = None) -> Console:
    out = stream or sys.stdout
    return Console(file=out, soft_wrap=True, highlight=False, width=None if out.isatty() else 200)


def dump(data: Any, fmt: str, stream: TextIO | None = None) -> None:
    """`data` as JSON or YAML on stdout."""
    out = stream or sys.stdout
    if fmt == "json":
        out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        out.write(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    out.flush()


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, title: str = "") -> None:
    view = Table(*headers, title=title or None, box=None, pad_edge=False, show_edge=False)
    for row in rows:
        view.add_row(*("" if cell is None else str(cell) for cell in row))
    console().print(view)


def say(text: str, stream: TextIO | None = None) -> None:
    out = stream or sys.stdout
    out.write(text + "\n")
    out.flush()


def warn(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
