"""Where LFS pointers would end up, and their real contents put there (`enableLfs`).

Two places read a commit's files: directory renders (blob contents straight from the
cache) and checkouts for tools (Kustomize, Helm, plugins: `git read-tree -u`, which runs
no LFS filter). Without `enableLfs` both see the pointer files, as Argo CD renders them.
With it, `contents` swaps every pointer among a render's files for its object and
`smudge_work_tree` overwrites every pointer file of a checkout with its object (the
pointers found by reading the commit's small blobs, as git-lfs scans a tree), before any
tool runs. Sizes are checked against the LFS limits and the render's own limit (the
manifests' combined size, the checkout's total) with the real sizes, before anything is
downloaded.
"""

import asyncio
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from app.repo.access import RepoAccess
from app.repo.cached_repo import CachedRepo
from app.repo.errors import LimitExceeded
from app.repo.lfs_pointer import LfsLimits, LfsPointer, check_sizes, may_be_pointer, parse_pointer
from app.repo.tree import NodeKind, RepoTree


def _pointers(blobs: Mapping[str, bytes]) -> dict[str, LfsPointer]:
    return {path: p for path, blob in blobs.items() if (p := parse_pointer(blob)) is not None}


async def contents(
    cached: CachedRepo,
    remote: RepoAccess,
    files: Mapping[str, bytes],
    limits: LfsLimits,
    *,
    where: str,
    max_bytes: int,
) -> dict[str, bytes]:
    """`files` (path → blob) with every LFS pointer replaced by its object's contents;
    LimitExceeded when the real contents exceed `max_bytes` (max_manifest_bytes)."""
    pointers = _pointers(files)
    if not pointers:
        return dict(files)
    lfs_total = check_sizes(pointers.items(), limits, where=where)
    total = lfs_total + sum(len(b) for path, b in files.items() if path not in pointers)
    if total > max_bytes:
        raise LimitExceeded(
            f"{where}: with their Git LFS contents the manifests total {total} bytes, more "
            f"than the limit of {max_bytes} (max_manifest_bytes); split the application or "
            "raise the limit"
        )
    stored = await cached.lfs.objects(remote, pointers)
    result = dict(files)
    for path, object_path in stored.items():
        result[path] = await asyncio.to_thread(object_path.read_bytes)
    return result


def _overwrite(target: Path, stored: Path) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW)
    with os.fdopen(fd, "wb") as out, stored.open("rb") as source:
        shutil.copyfileobj(source, out)


async def smudge_work_tree(
    cached: CachedRepo,
    remote: RepoAccess,
    tree: RepoTree,
    root: Path,
    limits: LfsLimits,
    *,
    max_bytes: int,
) -> int:
    """Put the object of every LFS pointer file of `tree` into the checkout at `root`;
    returns how many files were replaced. LimitExceeded when the commit with its LFS
    contents exceeds `max_bytes` (max_tree_bytes)."""
    display = remote.repo.display
    where = f"{display} at {tree.commit[:12]}"
    candidates = {
        path: entry
        for path, entry in tree.entries.items()
        if entry.kind is NodeKind.FILE and may_be_pointer(entry.size)
    }
    blobs = await cached.read_blobs(
        [e.oid for e in candidates.values()], max_bytes=sum(e.size for e in candidates.values())
    )
    pointers = _pointers({path: blobs[entry.oid] for path, entry in candidates.items()})
    if not pointers:
        return 0
    lfs_total = check_sizes(sorted(pointers.items()), limits, where=where)
    total = tree.total_bytes - sum(tree.entries[p].size for p in pointers) + lfs_total
    if total > max_bytes:
        raise LimitExceeded(
            f"{where}: with its Git LFS contents the commit holds {total} bytes, more than "
            f"max_tree_bytes ({max_bytes}); it is not checked out"
        )
    stored = await cached.lfs.objects(remote, dict(sorted(pointers.items())))
    for path, object_path in stored.items():
        await asyncio.to_thread(_overwrite, root / path, object_path)
    return len(stored)
