"""Command-line value types the benchmarks share: bad values are refused naming what is expected."""

import argparse
from pathlib import Path


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of at least 1")
    return int(text)


def new_directory(text: str) -> Path:
    """An argparse type: a directory that does not exist yet (the run creates and keeps it)."""
    path = Path(text)
    if path.exists():
        raise argparse.ArgumentTypeError(f"{text!r} exists already: name a new directory")
    return path
