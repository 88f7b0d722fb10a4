"""Every worker by name, for `sluice up` (all of them) and `sluice worker <name>` (one)."""

import importlib

from workers.base import Worker
from workers.runtime import Runtime

WORKERS = ("watcher", "render", "compare", "sync", "hooks", "poller")
"""In start order: the watcher first (the live cache warms while the rest start)."""


def build(name: str, runtime: Runtime) -> Worker:
    """Build the worker called `name` (a module `workers.<name>` with `build(runtime)`)."""
    if name not in WORKERS:
        raise ValueError(f"unknown worker {name!r}; choose one of {', '.join(WORKERS)}")
    module = importlib.import_module(f"workers.{name}")
    worker: Worker = module.build(runtime)
    return worker
