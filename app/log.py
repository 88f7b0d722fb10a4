"""Logging: structlog loggers, configured once per process by `app.log_setup.configure`.

Every decision is one event with its context bound (app, stage, revision, operation id),
so callers bind and log; they never format messages themselves. Every line is redacted
and kept to one line by the configuration, whoever writes it (`app.log_setup`).
"""

from typing import Any

import structlog


def get(name: str, **context: Any) -> Any:
    """A logger with `component=name` and the given context bound."""
    return structlog.get_logger(component=name, **context)
