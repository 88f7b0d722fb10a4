"""A checkout of one commit in a random, private work dir that disappears afterwards.

For renderers that run tools over files (Kustomize, Helm, plugins). Each checkout gets its
own `mkdtemp` directory (mode 0700, unguessable name) under the cache's work root, is filled
by `git read-tree -u` from the bare cache after the commit's symlink scan passed, and is
removed when the `async with` block ends, even on error or cancellation. Paths are resolved
with the same resolver as everything else, then checked once more against the real file
system.
"""

import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.repo.errors import PathError
from app.repo.paths import resolve_path
from app.repo.tree import RepoTree


@dataclass(frozen=True, slots=True)
class WorkTree:
    """The checked-out files of `commit` under `root`."""

    root: Path
    commit: str
    tree: RepoTree
    max_hops: int

    def resolve(self, path: str, *, field: str, base: str = "") -> Path:
        """The file system path for `path` (from Application field `field`), confined to root.

        `base` is a repo-relative directory, already resolved, that relative paths start
        from (e.g. source.path for Helm value files); a leading `/` means the root.
        """
        relative = resolve_path(self.tree, path, field=field, base=base, max_hops=self.max_hops)
        candidate = self.root / relative if relative else self.root
        real = os.path.realpath(candidate)
        root = os.path.realpath(self.root)
        if os.path.commonpath([real, root]) != root:
            raise PathError(field, f"{path!r} leaves the repository")
        return candidate


def _make_writable(func: Callable[..., Any], path: str, _exc: object) -> None:
    parent = os.path.dirname(path)
    os.chmod(parent, stat.S_IRWXU)
    if os.path.isdir(path) and not os.path.islink(path):
        os.chmod(path, stat.S_IRWXU)
    func(path)


def remove_tree(path: Path) -> None:
    """Delete a work dir, even if a tool left read-only directories in it."""
    if path.exists():
        shutil.rmtree(path, onerror=_make_writable)
