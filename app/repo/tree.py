"""The files of one commit, listed from the object database without a checkout.

`git ls-tree -r -z --long` gives every file, symlink and submodule of a commit with its
mode, object id and size. Sluice scans symlinks, resolves paths, selects manifests and
checks sizes on this listing, so nothing from an unchecked commit reaches the disk and
1,000 apps reading one commit share one listing.
"""

import enum
import posixpath
from dataclasses import dataclass, field

from app.repo.errors import GitError, LimitExceeded

_MODE_SYMLINK = "120000"
_MODE_SUBMODULE = "160000"
_FORBIDDEN_SEGMENTS = frozenset(("", ".", ".."))


class NodeKind(enum.Enum):
    FILE = "file"
    DIR = "directory"
    SYMLINK = "symlink"
    SUBMODULE = "submodule"


@dataclass(frozen=True, slots=True)
class TreeEntry:
    kind: NodeKind
    oid: str
    size: int


@dataclass(slots=True)
class RepoTree:
    """Path (repo-relative, `/`-separated, "" for the root) → entry, plus directory children."""

    commit: str
    entries: dict[str, TreeEntry]
    children: dict[str, list[str]]
    links: dict[str, str] = field(default_factory=dict)
    """Symlink path → target, filled in once the link blobs are read."""

    @property
    def total_bytes(self) -> int:
        return sum(e.size for e in self.entries.values())

    @property
    def symlinks(self) -> dict[str, TreeEntry]:
        return {p: e for p, e in self.entries.items() if e.kind is NodeKind.SYMLINK}

    def kind(self, path: str) -> NodeKind | None:
        if path in self.children:
            return NodeKind.DIR
        entry = self.entries.get(path)
        return entry.kind if entry is not None else None

    def list_dir(self, path: str) -> list[str]:
        """Names in a directory, sorted by code point (the order Argo CD walks them)."""
        return self.children.get(path, [])


def parse_ls_tree(output: bytes, *, commit: str, max_entries: int, repo: str) -> RepoTree:
    """Parse `ls-tree -r -z --long --full-tree` output; limits and malformed lines raise."""
    entries: dict[str, TreeEntry] = {}
    children: dict[str, set[str]] = {"": set()}
    records = output.split(b"\0")
    if records and records[-1] == b"":
        records.pop()
    if len(records) > max_entries:
        raise LimitExceeded(
            f"{repo} at {commit[:12]}: the commit has more than {max_entries} files "
            "(max_tree_entries); Sluice will not check it out"
        )
    for record in records:
        meta, tab, raw_path = record.partition(b"\t")
        parts = meta.decode("ascii", "replace").split()
        if not tab or len(parts) != 4 or not raw_path:
            raise GitError(f"{repo} at {commit[:12]}: unexpected ls-tree record {record[:80]!r}")
        mode, _type, oid, size_text = parts
        path = raw_path.decode("utf-8", "surrogateescape")
        if any(seg in _FORBIDDEN_SEGMENTS or seg.lower() == ".git" for seg in path.split("/")):
            raise GitError(f"{repo} at {commit[:12]}: the commit has an unsafe path {path!r}")
        if mode == _MODE_SYMLINK:
            kind = NodeKind.SYMLINK
        elif mode == _MODE_SUBMODULE:
            kind = NodeKind.SUBMODULE
        else:
            kind = NodeKind.FILE
        size = int(size_text) if size_text.isdigit() else 0
        if path in entries or path in children:
            raise GitError(f"{repo} at {commit[:12]}: the commit lists {path!r} twice")
        entries[path] = TreeEntry(kind, oid, size)
        parent, name = posixpath.split(path)
        while True:
            if parent in entries:
                raise GitError(
                    f"{repo} at {commit[:12]}: {parent!r} is both a file and a directory"
                )
            siblings = children.setdefault(parent, set())
            known = name in siblings
            siblings.add(name)
            if known or parent == "":
                break
            parent, name = posixpath.split(parent)
    return RepoTree(commit, entries, {d: sorted(names) for d, names in children.items()})
