"""Running a tool as a subprocess: deadline, output cap, process-group kill, nothing more.

Shared by git (gitprocess.py) and the render tools (kustomize.py). The caller builds argv
and the environment; this module starts the process in its own session (so everything it
spawns, ssh or a kustomize git clone, is in one process group), reads stdout up to a cap
(stopping the process when it is exceeded), keeps the first 64 KiB of stderr, and kills
the whole group when the deadline passes, a `watch` callback objects, the group's memory
(resident set of the process and its descendants) passes `max_rss`, or the caller is
cancelled. A deadline surfaces as TimeoutError for the caller to word.
"""

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

STDERR_CAP = 64 * 1024
"""Bytes of stderr kept; the rest is read and dropped so the process never blocks."""
_READ_CHUNK = 256 * 1024
_WATCH_INTERVAL = 0.1


@dataclass(frozen=True, slots=True)
class Finished:
    """How a process ended."""

    code: int
    stdout: bytes
    stderr: bytes
    violation: str | None
    """Why the process was stopped early (output cap, `watch`), or None."""
    seconds: float


async def run_process(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    deadline: float,
    max_output: int,
    stdin: bytes | None = None,
    watch: Callable[[], str | None] | None = None,
    max_rss: int | None = None,
) -> Finished:
    """Run `argv` to completion or until stopped; TimeoutError when `deadline` passes."""
    started = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(env),
        cwd=cwd,
        start_new_session=True,
    )
    if max_rss is not None:
        watch = _memory_watch(proc.pid, max_rss, watch)
    try:
        async with asyncio.timeout(deadline):
            stdout, stderr, violation = await _communicate(proc, stdin, max_output, watch)
            code = await proc.wait()
    finally:
        await _reap(proc)
    return Finished(code, stdout, stderr, violation, time.monotonic() - started)


def _resident(pid: int) -> int:
    try:
        process = psutil.Process(pid)
        family = [process, *process.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for member in family:
        try:
            total += member.memory_info().rss
        except psutil.Error:
            continue
    return total


def _memory_watch(
    pid: int, max_rss: int, then: Callable[[], str | None] | None
) -> Callable[[], str | None]:
    def watch() -> str | None:
        if _resident(pid) > max_rss:
            return f"its memory exceeded {max_rss // (1024 * 1024)} MiB"
        return then() if then is not None else None

    return watch


class _Violation(Exception):
    def __init__(self, message: str) -> None:
        self.message = message


async def _read_all(stream: asyncio.StreamReader | None, cap: int, *, strict: bool) -> bytes:
    if stream is None:
        return b""
    chunks: list[bytes] = []
    size = 0
    while chunk := await stream.read(_READ_CHUNK):
        size += len(chunk)
        if size > cap:
            if strict:
                raise _Violation(f"its output exceeded {cap} bytes")
            continue
        chunks.append(chunk)
    return b"".join(chunks)


async def _feed(stream: asyncio.StreamWriter | None, data: bytes) -> None:
    if stream is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stream.write(data)
        await stream.drain()
        stream.close()
        await stream.wait_closed()


async def _watch(proc: asyncio.subprocess.Process, watch: Callable[[], str | None]) -> str:
    while True:
        await asyncio.sleep(_WATCH_INTERVAL)
        message = watch()
        if message is not None:
            _kill(proc)
            return message


async def _communicate(
    proc: asyncio.subprocess.Process,
    stdin: bytes | None,
    max_output: int,
    watch: Callable[[], str | None] | None,
) -> tuple[bytes, bytes, str | None]:
    helpers: list[asyncio.Future[object]] = [
        asyncio.ensure_future(_read_all(proc.stderr, STDERR_CAP, strict=False))
    ]
    if stdin is not None:
        helpers.append(asyncio.ensure_future(_feed(proc.stdin, stdin)))
    watcher = asyncio.ensure_future(_watch(proc, watch)) if watch is not None else None
    try:
        try:
            stdout = await _read_all(proc.stdout, max_output, strict=True)
        except _Violation as e:
            _kill(proc)
            await asyncio.gather(_discard(proc.stdout), *helpers)
            return b"", b"", e.message
        results = await asyncio.gather(*helpers)
        stderr = results[0]
        assert isinstance(stderr, bytes)
        await proc.wait()
        if watcher is not None and watcher.done():
            return stdout, stderr, watcher.result()
        return stdout, stderr, None
    finally:
        pending = [t for t in [*helpers, watcher] if t is not None and not t.done()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)


async def _discard(stream: asyncio.StreamReader | None) -> None:
    """Read `stream` to its end, keeping nothing.

    asyncio's `Process.wait()` returns only once every pipe has closed, and a pipe whose
    reader stopped with more than the stream limit buffered is paused and never sees its
    end; a stopped process's pipes are therefore read out before it is waited for.
    """
    if stream is not None:
        while await stream.read(_READ_CHUNK):
            pass


async def _reap(proc: asyncio.subprocess.Process) -> None:
    """Kill the process group if still running, read out its pipes and wait, even when
    being cancelled."""
    if proc.returncode is None:
        _kill(proc)
    with contextlib.suppress(ProcessLookupError):
        await asyncio.shield(asyncio.gather(_discard(proc.stdout), _discard(proc.stderr)))
        await asyncio.shield(proc.wait())
