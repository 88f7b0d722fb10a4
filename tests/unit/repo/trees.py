"""Building commit listings (`RepoTree`) in memory for the pure repository tests."""

import hashlib
from dataclasses import dataclass

from app.repo.tree import RepoTree, parse_ls_tree


@dataclass(frozen=True)
class Link:
    target: str


@dataclass(frozen=True)
class Submodule:
    commit: str = "1" * 40


def _oid(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:40]


Spec = dict[str, "str | Link | Submodule"]


def make_tree(spec: Spec, commit: str = "c" * 40) -> RepoTree:
    """A listing with files (str content), symlinks and submodules at the given paths."""
    records = []
    for path, item in spec.items():
        if isinstance(item, Link):
            data = item.target.encode()
            mode, kind, oid, size = "120000", "blob", _oid(data), str(len(data))
        elif isinstance(item, Submodule):
            mode, kind, oid, size = "160000", "commit", item.commit, "-"
        else:
            data = item.encode()
            mode, kind, oid, size = "100644", "blob", _oid(data), str(len(data))
        records.append(f"{mode} {kind} {oid} {size:>7}\t{path}".encode())
    tree = parse_ls_tree(b"\0".join(records) + b"\0", commit=commit, max_entries=10_000, repo="r")
    tree.links = {p: i.target for p, i in spec.items() if isinstance(i, Link)}
    return tree
