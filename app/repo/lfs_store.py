"""Git LFS objects of one cached repository: downloaded once by git-lfs, then kept.

Objects live beside the bare cache they belong to (`<cache>/lfs/objects/<aa>/<bb>/<oid>`,
the layout git-lfs uses), so a project-scoped repository's objects are as separate as its
commits. A missing object is downloaded by the real git-lfs client (`git lfs smudge`, the
pointer on stdin) run through the one git runner, so it gets the repository's credentials
exactly as fetches do (access.py: the host-bound credential helper, headers, CA bundle,
client certificate, proxy; nothing secret in argv or the environment). It runs in a
throwaway repository with `lfs.url` set to the endpoint derived from the repository URL:
no `.lfsconfig` from a commit is read, and git-lfs's own bookkeeping (it records the
auth scheme in the repository's config) never touches the shared cache.

Bounds: the pointer's size is checked by the caller (lfs_pointer.check_sizes) before any
download; git-lfs's output is capped at that size and its scratch directory is watched, so
a server sending more is stopped while it streams; what arrives must hash to the
pointer's oid, else it is refused. Only a verified object is moved into place (atomic
rename), so readers never see half of one. Downloads for one cache run one at a time.
"""

import asyncio
import hashlib
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from app import log
from app.repo.access import RepoAccess
from app.repo.errors import GitError
from app.repo.gitprocess import GitRunner
from app.repo.lfs_pointer import LfsPointer, lfs_endpoint

logger = log.get("repo.lfs")

_SCRATCH_SLACK = 1024 * 1024
"""Bytes git-lfs may write beyond the object itself (its logs and temp names)."""


def _dir_bytes(path: Path) -> int:
    total = 0
    for directory, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(directory, name)).st_size
            except FileNotFoundError:
                continue
    return total


def _complete(path: Path, size: int) -> bool:
    try:
        return path.stat().st_size == size
    except FileNotFoundError:
        return False


def _keep(root: Path, target: Path, data: bytes) -> None:
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".incoming-", dir=root)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.replace(temporary, target)


class LfsStore:
    """The LFS objects fetched so far for one cached repository."""

    def __init__(self, runner: GitRunner, root: Path, label: str) -> None:
        self._runner = runner
        self._root = root
        self._label = label
        self._lock = asyncio.Lock()

    def _object(self, oid: str) -> Path:
        return self._root / "objects" / oid[:2] / oid[2:4] / oid

    async def objects(
        self, remote: RepoAccess, pointers: Mapping[str, LfsPointer]
    ) -> dict[str, Path]:
        """Path → the stored object its pointer stands for, downloading what is missing
        (GitError naming the file and the repository when the server cannot give it)."""
        found: dict[str, Path] = {}
        for path, pointer in pointers.items():
            stored = self._object(pointer.oid)
            if not await asyncio.to_thread(_complete, stored, pointer.size):
                async with self._lock:
                    if not await asyncio.to_thread(_complete, stored, pointer.size):
                        await self._download(remote, path, pointer, stored)
            found[path] = stored
        return found

    async def _download(
        self, remote: RepoAccess, path: str, pointer: LfsPointer, stored: Path
    ) -> None:
        display = remote.repo.display
        await asyncio.to_thread(self._root.mkdir, 0o700, True, True)
        scratch = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix=".lfs-", dir=self._root))
        limit = pointer.size + _SCRATCH_SLACK

        def watch() -> str | None:
            if _dir_bytes(scratch) <= limit:
                return None
            return f"the server sent more than the {pointer.size} bytes the pointer declares"

        what = f"downloading the Git LFS file {path!r} ({pointer.size} bytes) of {display}"
        try:
            await self._runner.run(
                ["init", "--bare", "--quiet", "--template=", str(scratch)],
                what=f"preparing an LFS download for the cache of {self._label}",
            )
            data = await self._runner.run(
                ["lfs", "smudge", "--", path],
                git_dir=scratch,
                remote=remote,
                stdin=pointer.text,
                max_output=max(pointer.size, 1),
                extra_env={"GIT_LFS_SKIP_SMUDGE": "0"},
                config=[("lfs.url", lfs_endpoint(remote.repo)), ("lfs.locksverify", "false")],
                watch=watch,
                what=what,
            )
            if len(data) != pointer.size or hashlib.sha256(data).hexdigest() != pointer.oid:
                raise GitError(
                    f"{what} failed: the content the server sent does not match the pointer "
                    f"(sha256 {pointer.oid[:12]}…, {pointer.size} bytes); the LFS server "
                    "does not hold this object as committed"
                )
            await asyncio.to_thread(_keep, self._root, stored, data)
        finally:
            await asyncio.shield(asyncio.to_thread(shutil.rmtree, scratch, True))
        logger.info("lfs.fetched", repo=display, path=path, oid=pointer.oid, size=pointer.size)
