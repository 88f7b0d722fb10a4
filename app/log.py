"""Logging: structlog configured once per process.

JSON lines in production (`SLUICE_LOG_FORMAT=json`, or whenever stderr is not a
terminal), a readable console renderer on a terminal. Every decision is one event with
its context bound (app, stage, revision, operation id), so callers bind and log; they
never format messages themselves.
"""

import logging
import os
import sys
from typing import Any

import structlog


def configure(level: str | None = None, fmt: str | None = None) -> None:
    """Configure structlog and the standard library logger once; later calls are no-ops."""
    if structlog.is_configured():
        return
    level_name = (level or os.environ.get("SLUICE_LOG_LEVEL", "info")).upper()
    fmt = (
        fmt or os.environ.get("SLUICE_LOG_FORMAT") or ("console" if sys.stderr.isatty() else "json")
    )
    renderer: Any = (
        structlog.dev.ConsoleRenderer() if fmt == "console" else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping().get(level_name, logging.INFO)
        ),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)


def get(name: str, **context: Any) -> Any:
    """A logger with `component=name` and the given context bound."""
    return structlog.get_logger(component=name, **context)
