"""Logging configured once per process, every line through the redaction choke point.

`configure()` sets up structlog (Sluice's own events) and the standard library's root
logger (aiohttp's, asyncio's, any library's) with one processor chain, so every line a
process writes, whoever wrote it, is shaped the same way:

- Redacted: every string in the event (the message, every field, nested ones) goes
  through `app.engine.redact.redact_text`. aiohttp's parser, for one, quotes the start of
  a header that is too long, bearer token included; that line is masked like any other.
- One line: an exception becomes an `error` field (`Type: message (at file:line in
  function)`), never a multi-line traceback. A malformed request, a client that resets
  its connection or an event stream whose reader went away is one line; so is an
  exception nobody caught (`sys.excepthook`, `threading.excepthook`), logged as
  `process.uncaught` before the process exits, and one nobody could catch (raised in a
  `__del__`, a finalizer, a transport closed after its loop: `sys.unraisablehook`),
  logged as `process.unraisable`.
- JSON lines in production (`SLUICE_LOG_FORMAT=json`, or whenever stderr is not a
  terminal), a readable console renderer on a terminal.

It lives apart from `app.log` (the loggers, used everywhere, the engine included) because
it needs the engine's redaction, and the engine logs.
"""

import logging
import os
import re
import sys
import threading
import traceback
from collections.abc import Mapping
from pathlib import PurePath
from types import TracebackType
from typing import Any, TextIO

import structlog
from structlog.typing import EventDict

from app.engine.redact import redact_text

MAX_ERROR_CHARS = 2000
"""Longest exception text kept in a line (a parser error can quote kilobytes of input)."""

_PARSER_MODULES = ("aiohttp.http", "aiohttp._http")
"""Where aiohttp's HTTP parser errors come from (`aiohttp.http_exceptions`)."""
_QUOTED_INPUT = re.compile(r"""b'(?:[^'\\]|\\.)*'?|b"(?:[^"\\]|\\.)*"?""")


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, bytes):
        return redact_text(value.decode("utf-8", "replace"))
    if isinstance(value, Mapping):
        return {key: _redacted(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_redacted(item) for item in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return redact_text(repr(value))


def redact_event(_logger: Any, _method: str, event: EventDict) -> EventDict:
    """Every string of the event, at any depth, with credentials masked (any other object
    as its masked repr, the text a renderer would have shown)."""
    return {key: _redacted(value) for key, value in event.items()}


def _exception(exc_info: Any) -> BaseException | None:
    if isinstance(exc_info, BaseException):
        return exc_info
    if isinstance(exc_info, tuple):
        return exc_info[1] if len(exc_info) == 3 else None
    return sys.exc_info()[1] if exc_info else None


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    path = "/".join(PurePath(last.filename).parts[-2:])
    return f" (at {path}:{last.lineno} in {last.name})"


def error_text(exc: BaseException) -> str:
    """One line naming the exception, what it says and where it was raised.

    An HTTP parser error quotes the raw input it choked on (any header value: a token
    with no `Bearer` before it, a cookie); that quote is dropped, not just masked."""
    said = " ".join(str(exc).split())
    if type(exc).__module__.startswith(_PARSER_MODULES):
        said = _QUOTED_INPUT.sub("b'…'", said)
    if len(said) > MAX_ERROR_CHARS:
        said = said[: MAX_ERROR_CHARS - 1] + "…"
    name = type(exc).__name__
    return f"{name}: {said}{_where(exc)}" if said else name + _where(exc)


def one_line_exception(_logger: Any, _method: str, event: EventDict) -> EventDict:
    """Replace `exc_info` (and any stack) by a one-line `error` field."""
    exc = _exception(event.pop("exc_info", None))
    event.pop("stack_info", None)
    event.pop("stack", None)
    if exc is not None:
        event["exception" if "error" in event else "error"] = error_text(exc)
    return event


def _component(_logger: Any, _method: str, event: EventDict) -> EventDict:
    """A library's line names its logger (`aiohttp.server`) as Sluice's name their component."""
    record = event.get("_record")
    if isinstance(record, logging.LogRecord):
        event.setdefault("component", record.name)
    return event


def _renderer(fmt: str) -> Any:
    if fmt == "console":
        return structlog.dev.ConsoleRenderer()
    return structlog.processors.JSONRenderer()


def _log_uncaught(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, exc, tb)
        return
    structlog.get_logger(component="process").critical("process.uncaught", exc_info=exc)


def _log_uncaught_in_thread(args: threading.ExceptHookArgs) -> None:
    if args.exc_value is None:
        return
    thread = args.thread.name if args.thread is not None else ""
    structlog.get_logger(component="process").critical(
        "thread.uncaught", thread=thread, exc_info=args.exc_value
    )


def _log_unraisable(unraisable: "sys.UnraisableHookArgs") -> None:
    what = unraisable.err_msg or "Exception ignored in"
    target = repr(unraisable.object)[:200] if unraisable.object is not None else ""
    structlog.get_logger(component="process").error(
        "process.unraisable", message=what, object=target, exc_info=unraisable.exc_value
    )


def configure(
    level: str | None = None, fmt: str | None = None, *, stream: TextIO | None = None
) -> None:
    """Configure structlog and the standard library logger once; later calls are no-ops.

    Lines go to `stream` (default: stderr)."""
    out = stream or sys.stderr
    if structlog.is_configured():
        return
    level_name = (level or os.environ.get("SLUICE_LOG_LEVEL", "info")).upper()
    fmt = fmt or os.environ.get("SLUICE_LOG_FORMAT") or ("console" if out.isatty() else "json")
    stamp = structlog.processors.TimeStamper(fmt="iso", utc=True)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            stamp,
            one_line_exception,
            redact_event,
            _renderer(fmt),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping().get(level_name, logging.INFO)
        ),
        logger_factory=structlog.PrintLoggerFactory(file=out),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(out)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[structlog.stdlib.add_log_level, _component, stamp],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                one_line_exception,
                redact_event,
                _renderer(fmt),
            ],
        )
    )
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(logging.WARNING)
    sys.excepthook = _log_uncaught
    threading.excepthook = _log_uncaught_in_thread
    if sys.unraisablehook is sys.__unraisablehook__:
        # A test runner's own hook (pytest's, which fails the test) is left in place.
        sys.unraisablehook = _log_unraisable
