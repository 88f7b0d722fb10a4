"""The symlink scan every commit passes before anything reads or checks it out.

A commit is refused (SymlinkError, naming the link) when any symlink in it is absolute,
leaves the repository at any step of its resolution (even if a later step comes back in),
or needs more than `max_hops` links to resolve (itself included). Links that stay inside
but point at nothing (dangling) are allowed here: they are harmless until something reads
through one, and the reader reports that with the file's name.
"""

from app.repo.errors import SymlinkError
from app.repo.paths import EscapeError, describe, walk
from app.repo.tree import RepoTree


def check_symlinks(tree: RepoTree, *, max_hops: int, repo: str) -> None:
    """Raise SymlinkError for the first offending link (in path order)."""
    for link in sorted(tree.links):
        target = tree.links[link]
        if target.startswith("/"):
            reason = "is absolute; symlinks must be relative and stay inside the repository"
        else:
            try:
                walk(tree, link, base="", max_hops=max_hops)
                continue
            except EscapeError as e:
                reason = describe(e, max_hops=max_hops)
        raise SymlinkError(
            link,
            f"{repo} at {tree.commit[:12]}: symlink {link!r} -> {target!r} {reason}. "
            "Sluice refuses commits with such links: make the link relative and inside "
            "the repository, or remove it",
        )
