"""An advisory lock on a file, taken without blocking the event loop.

Processes sharing a cache directory (replicas on one host, `sluice up` beside a worker)
must not run two fetches into one bare repository at once; `flock` serialises them, and
within one process an asyncio.Lock in front of it keeps waiters from polling.
"""

import asyncio
import contextlib
import fcntl
import os
from collections.abc import AsyncIterator
from pathlib import Path

_FIRST_DELAY = 0.005
_MAX_DELAY = 0.1


@contextlib.asynccontextmanager
async def file_lock(path: Path) -> AsyncIterator[None]:
    """Hold an exclusive flock on `path` (created 0600); the caller bounds the wait."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        delay = _FIRST_DELAY
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                await asyncio.sleep(delay)
                delay = min(delay * 2, _MAX_DELAY)
        yield
    finally:
        os.close(fd)
