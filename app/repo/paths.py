"""The one path resolver: every path taken from an Application goes through `resolve_path`.

Rules (docs/threats.md, "Rendering"): a leading `/` means the repository root, anything else is
relative to a base directory (the repository root, or source.path for files named inside
an app); symlinks are followed component by component, as the kernel would, but the walk
is confined: a `..` that would climb above the root, or a symlink that is absolute, is an
error at that point, even if later components would come back inside. A chain of more
than `max_hops` symlinks is an error (that also ends loops).

The walk runs over the commit's listing (`RepoTree`), so it gives the same answer as the
checked-out tree without touching the disk; a work dir's `resolve` maps the result onto
its root and checks again with the real file system.
"""

import enum
from dataclasses import dataclass

from app.repo.errors import PathError
from app.repo.tree import NodeKind, RepoTree

MAX_PATH_LENGTH = 4096


class Escape(enum.Enum):
    LEAVES_ROOT = "leaves the repository"
    ABSOLUTE_LINK = "goes through an absolute symlink"
    TOO_MANY_LINKS = "follows too many symlinks"


@dataclass(frozen=True, slots=True)
class EscapeError(Exception):
    """Raised inside the walk; `link`/`target` name the symlink involved, if any."""

    kind: Escape
    link: str = ""
    target: str = ""


def walk(tree: RepoTree, path: str, *, base: str, max_hops: int) -> str:
    """The canonical repo-relative path `path` names ("" is the root); raises EscapeError."""
    stack = [] if path.startswith("/") or not base else base.split("/")
    pending = [c for c in path.split("/") if c not in ("", ".")]
    pending.reverse()
    hops = 0
    via_link, via_target = "", ""
    while pending:
        part = pending.pop()
        if part == "..":
            if not stack:
                raise EscapeError(Escape.LEAVES_ROOT, via_link, via_target)
            stack.pop()
            continue
        candidate = "/".join([*stack, part])
        if tree.kind(candidate) is not NodeKind.SYMLINK:
            stack.append(part)
            continue
        target = tree.links.get(candidate, "")
        hops += 1
        if hops > max_hops:
            raise EscapeError(Escape.TOO_MANY_LINKS, candidate, target)
        if target.startswith("/"):
            raise EscapeError(Escape.ABSOLUTE_LINK, candidate, target)
        via_link, via_target = candidate, target
        pending.extend(reversed([c for c in target.split("/") if c not in ("", ".")]))
    return "/".join(stack)


def describe(escape: EscapeError, *, max_hops: int) -> str:
    """The user-facing reason for an escape (without the path that was being resolved)."""
    link = f" through the symlink {escape.link!r} -> {escape.target!r}" if escape.link else ""
    if escape.kind is Escape.LEAVES_ROOT:
        return f"leaves the repository{link}; paths must stay inside the repository"
    if escape.kind is Escape.ABSOLUTE_LINK:
        return (
            f"goes through the symlink {escape.link!r}, which points to the absolute path "
            f"{escape.target!r}; symlinks must be relative and stay inside the repository"
        )
    return f"follows more than {max_hops} symlinks (last {escape.link!r}); is there a loop?"


def resolve_path(
    tree: RepoTree, path: str, *, field: str, base: str = "", max_hops: int = 16
) -> str:
    """Resolve `path` from the Application field `field`; PathError explains any escape.

    `base` must itself be a resolved path (a result of this function or a directory of the
    listing). Existence is not checked here: ask `tree.kind(result)`.
    """
    if len(path) > MAX_PATH_LENGTH or "\x00" in path:
        raise PathError(field, f"{path[:80]!r}… is not a usable path")
    try:
        return walk(tree, path, base=base, max_hops=max_hops)
    except EscapeError as e:
        raise PathError(field, f"{path!r} {describe(e, max_hops=max_hops)}") from None
