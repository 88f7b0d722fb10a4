"""Every log line goes through redaction and stays one line, whoever wrote it."""

import json
import subprocess
import sys
from typing import Any

from app.log_setup import error_text, one_line_exception, redact_event

TOKEN = "tok-0123456789abcdef"


class _Url:
    def __repr__(self) -> str:
        return f"URL('https://ci:{TOKEN}@git.example/org/repo.git')"


def test_every_string_of_an_event_is_redacted_at_any_depth() -> None:
    event: dict[str, Any] = {
        "event": f"request with Authorization: Bearer {TOKEN}",
        "headers": {"Authorization": f"Bearer {TOKEN}"},
        "urls": [f"https://ci:{TOKEN}@git.example/org/repo.git"],
        "raw": f"token={TOKEN}".encode(),
        "url": _Url(),
        "count": 3,
    }
    out = redact_event(None, "info", event)
    assert TOKEN not in repr(out)
    assert out["count"] == 3
    assert out["headers"] == {"Authorization": "Bearer ***"}


def test_an_exception_becomes_one_line_naming_where_it_was_raised() -> None:
    def fail() -> None:
        raise ValueError("first line\nsecond line")

    try:
        fail()
    except ValueError as e:
        out = one_line_exception(None, "error", {"event": "x", "exc_info": e})
    assert "exc_info" not in out
    assert out["error"].startswith("ValueError: first line second line (at unit/test_log_setup.py:")
    assert out["error"].endswith(" in fail)")


def test_an_http_parser_error_loses_the_input_it_quotes() -> None:
    parser_error = type("LineTooLong", (Exception,), {"__module__": "aiohttp.http_exceptions"})
    exc = parser_error(f"400, message:\n  Got more than 8190 bytes when reading: b'{TOKEN}aaa...'.")
    assert error_text(exc) == (
        "LineTooLong: 400, message: Got more than 8190 bytes when reading: b'…'."
    )


UNRAISABLE = f"""
import gc
from app import log_setup

class Leaky:
    def __del__(self):
        raise RuntimeError("closed with Authorization: Bearer {TOKEN}")

log_setup.configure(level="info", fmt="json")
Leaky()
gc.collect()
raise ValueError("nobody caught this")
"""


def test_an_exception_nobody_could_catch_is_one_redacted_line() -> None:
    done = subprocess.run(
        [sys.executable, "-c", UNRAISABLE],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 1
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    assert [line["event"] for line in lines] == ["process.unraisable", "process.uncaught"]
    assert lines[0]["error"].startswith("RuntimeError: closed with Authorization: Bearer ***")
    assert "Leaky.__del__" in lines[0]["message"] + lines[0]["object"]
    assert lines[1]["error"].startswith("ValueError: nobody caught this")
    assert "Traceback" not in done.stderr
    assert TOKEN not in done.stderr
