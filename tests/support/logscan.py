"""The secrets the tests hand to Sluice, and the scan proving none reached a log.

- `known_secret(value, what)`: register a test secret (a token, a password; a key by its
  body lines, `key_lines`) where it is made, and use what it returns. Only values of at
  least `MIN_CHARS` characters are looked for (shorter ones would match by chance).
- `TEE`: where the test process's own log lines go (stderr and, once the session log is
  open, `<basetemp>/pytest-process.log`): `tests/conftest.py` configures logging with it.
- `tests/conftest.py`'s session fixture `_log_scan` (autouse, so set up first and torn
  down last) reads, once the run is over, every `*.log` file under the session's base
  temporary directory (`scan`): every test's processes write their logs under
  `tmp_path` (`sluice up`, `sluice worker`, `sluice api`, the embedded servers, sshd),
  and the test process's own lines go there through `TEE`. A line holding a registered
  secret or a Python traceback fails the run, naming the file, the line and what was
  found, never the secret itself.
- `leaks(text)`: what the scan looks for, for tests that check other text (CLI answers,
  process arguments) the same way.
"""

import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

MIN_CHARS = 8
TRACEBACK = "Traceback (most recent call last)"
PROCESS_LOG = "pytest-process.log"

_KNOWN: dict[str, str] = {}
"""Registered secret → what it is."""


def known_secret(value: str, what: str) -> str:
    """Register `value` (described as `what`) as a secret no log may hold; return it."""
    if len(value) >= MIN_CHARS:
        _KNOWN[value] = what
    return value


def key_lines(pem: str, what: str) -> str:
    """Register the body lines of a PEM or OpenSSH private key; return the key."""
    for line in pem.strip().splitlines()[1:-1]:
        known_secret(line.strip(), what)
    return pem


def leaks(text: str) -> list[str]:
    """What each registered secret found in `text` is (empty: none)."""
    return sorted({what for value, what in _KNOWN.items() if value in text})


class _Tee:
    """A text stream writing to stderr (as bound at start) and, once opened, a file."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._file: IO[str] | None = None

    def open(self, path: Path) -> None:
        self._file = path.open("a", encoding="utf-8")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def write(self, text: str) -> int:
        if self._file is not None:
            self._file.write(text)
        return self._stream.write(text)

    def isatty(self) -> bool:
        return False

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()
        self._stream.flush()


TEE = _Tee(sys.stderr)


@dataclass(frozen=True, slots=True)
class Finding:
    path: Path
    line: int
    what: str
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}: {self.text}"


def _masked(text: str) -> str:
    for value, what in _KNOWN.items():
        text = text.replace(value, f"<{what}>")
    return text[:300]


def scan_file(path: Path) -> Iterator[Finding]:
    with path.open(encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines, 1):
            found = leaks(line)
            if TRACEBACK in line:
                found.append("a traceback")
            if found:
                yield Finding(path, number, ", ".join(found), _masked(line.rstrip()))


def scan(paths: Iterable[Path]) -> list[Finding]:
    return [finding for path in sorted(paths) if path.is_file() for finding in scan_file(path)]
