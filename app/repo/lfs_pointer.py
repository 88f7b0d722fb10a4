"""Git LFS pointer files: recognising them, where their objects live, what they may cost.

A file stored with Git LFS is, in the commit, a small text pointer (the LFS spec v1):

    version https://git-lfs.github.com/spec/v1
    oid sha256:<64 hex digits>
    size <bytes>

Only a blob that is exactly such a pointer counts (keys in order, each line ending in
LF, nothing else), and only blobs under `POINTER_MAX_BYTES` are looked at, as git-lfs's
own scanner does; any other file is an ordinary file, whatever its `.gitattributes` say.
A pointer's object is asked for at the LFS endpoint git-lfs derives from the repository
URL (`<url>.git/info/lfs`; an ssh URL is its own endpoint); a repository's `.lfsconfig`
is not read, so a commit cannot send Sluice to another server (docs/decisions.md).
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass

from app.repo.errors import LimitExceeded
from app.repo.urls import RepoURL, Transport

POINTER_MAX_BYTES = 1024
"""Blobs this size or larger are never pointers (git-lfs's blob size cutoff)."""
POINTER_MIN_BYTES = 126
"""The shortest v1 pointer (`size 0`): smaller blobs are never read to check."""
_POINTER = re.compile(
    rb"version https://git-lfs\.github\.com/spec/v1\n"
    rb"oid sha256:(?P<oid>[0-9a-f]{64})\n"
    rb"size (?P<size>0|[1-9][0-9]{0,17})\n"
)


@dataclass(frozen=True, slots=True)
class LfsPointer:
    """One LFS object a file stands for."""

    oid: str
    """The object's sha256, lower-case hex."""
    size: int

    @property
    def text(self) -> bytes:
        """The canonical pointer (what `git lfs smudge` reads)."""
        return (
            b"version https://git-lfs.github.com/spec/v1\n"
            + f"oid sha256:{self.oid}\nsize {self.size}\n".encode()
        )


def parse_pointer(blob: bytes) -> LfsPointer | None:
    """The pointer `blob` is, or None when it is an ordinary file."""
    if len(blob) >= POINTER_MAX_BYTES:
        return None
    match = _POINTER.fullmatch(blob)
    if match is None:
        return None
    return LfsPointer(match["oid"].decode(), int(match["size"]))


def may_be_pointer(size: int) -> bool:
    """Whether a blob of `size` bytes needs reading to know if it is a pointer."""
    return POINTER_MIN_BYTES <= size < POINTER_MAX_BYTES


def lfs_endpoint(repo: RepoURL) -> str:
    """The LFS API URL for `repo`, as git-lfs derives it from a remote URL."""
    if repo.transport is Transport.SSH:
        return repo.display
    base = repo.without_userinfo.rstrip("/")
    if not base.endswith(".git"):
        base += ".git"
    return base + "/info/lfs"


@dataclass(frozen=True, slots=True)
class LfsLimits:
    max_object_bytes: int
    """Largest single LFS object fetched."""
    max_total_bytes: int
    """Most LFS content one render or checkout may fetch in all."""


def check_sizes(
    pointers: Iterable[tuple[str, LfsPointer]], limits: LfsLimits, *, where: str
) -> int:
    """The total size of the objects; LimitExceeded naming the file or the total first."""
    total = 0
    for path, pointer in pointers:
        if pointer.size > limits.max_object_bytes:
            raise LimitExceeded(
                f"{where}: the Git LFS file {path!r} is {pointer.size} bytes, more than "
                f"max_lfs_object_bytes ({limits.max_object_bytes}); it is not fetched"
            )
        total += pointer.size
    if total > limits.max_total_bytes:
        raise LimitExceeded(
            f"{where}: the Git LFS files total {total} bytes, more than max_lfs_bytes "
            f"({limits.max_total_bytes}); they are not fetched"
        )
    return total
