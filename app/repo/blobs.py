"""Reading file contents from a cache, batched across callers.

A cold render of 1,000 apps with different paths would start 1,000 `git cat-file`
processes. Instead, every request made during one turn of the event loop joins a batch,
and one `git cat-file --batch` serves the whole batch; each caller gets its own files back.
"""

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.repo.errors import GitError, RepoError
from app.repo.gitprocess import GitRunner

_HEADER_BYTES = 64


@dataclass
class _Batch:
    done: "asyncio.Future[dict[str, bytes]]"
    oids: dict[str, None] = field(default_factory=dict)
    max_bytes: int = 0


class BlobReader:
    """Blob contents of one repository, by object id."""

    def __init__(self, runner: GitRunner, git_dir: Path, label: str) -> None:
        self._runner = runner
        self._git_dir = git_dir
        self._label = label
        self._pending: _Batch | None = None
        self._flushing: set[asyncio.Task[None]] = set()

    async def read(self, oids: Sequence[str], *, max_bytes: int) -> dict[str, bytes]:
        """The contents of `oids` (at most `max_bytes` in all, checked by git's output cap)."""
        unique = list(dict.fromkeys(oids))
        if not unique:
            return {}
        batch = self._pending
        if batch is None:
            loop = asyncio.get_running_loop()
            batch = self._pending = _Batch(loop.create_future())
            loop.call_soon(self._flush_soon, batch)
        batch.oids.update(dict.fromkeys(unique))
        batch.max_bytes += max_bytes
        blobs = await asyncio.shield(batch.done)
        return {oid: blobs[oid] for oid in unique}

    def _flush_soon(self, batch: _Batch) -> None:
        if self._pending is batch:
            self._pending = None
        task = asyncio.ensure_future(self._flush(batch))
        self._flushing.add(task)
        task.add_done_callback(self._flushing.discard)

    async def _flush(self, batch: _Batch) -> None:
        try:
            batch.done.set_result(await self._read(list(batch.oids), batch.max_bytes))
        except asyncio.CancelledError:
            batch.done.cancel()
            raise
        except (RepoError, OSError) as e:
            batch.done.set_exception(e)
        finally:
            if not batch.done.done():
                batch.done.set_exception(GitError(f"reading files of {self._label} failed"))

    async def _read(self, oids: list[str], max_bytes: int) -> dict[str, bytes]:
        out = await self._runner.run(
            ["cat-file", "--batch"],
            git_dir=self._git_dir,
            stdin="".join(f"{oid}\n" for oid in oids).encode(),
            max_output=max_bytes + _HEADER_BYTES * len(oids),
            what=f"reading files of {self._label}",
        )
        blobs: dict[str, bytes] = {}
        pos = 0
        for oid in oids:
            end = out.index(b"\n", pos)
            header = out[pos:end].decode("ascii", "replace").split()
            if len(header) != 3 or header[1] != "blob":
                raise GitError(f"{self._label}: object {oid[:12]} is missing from the cache")
            size = int(header[2])
            blobs[oid] = out[end + 1 : end + 1 + size]
            pos = end + 1 + size + 1
        return blobs
