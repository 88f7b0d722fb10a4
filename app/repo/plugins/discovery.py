"""Plugin discovery answered from the commit's listing, when it can be, before any checkout.

`fileName` (Go's filepath.Glob: `*` stays within one path segment) and `find.glob` (where
`**` spans any number of segments) are matched against the paths under the app directory
in the commit's listing; the answer is the one the same glob gives on a checkout. What
the listing cannot answer for sure gives None: a `find.command` (it must run), a pattern
with `..`, or an app directory holding symlinks (a glob follows them on disk). The render
then checks out and asks the file system (run.py), so an untyped source on a host with
plugins pays a checkout only when some plugin might take it.
"""

from fnmatch import fnmatchcase

from app.repo.plugins.spec import Discover
from app.repo.tree import RepoTree


def _segments(pattern: str) -> list[str] | None:
    parts = [p for p in pattern.split("/") if p not in ("", ".")]
    return None if not parts or ".." in parts else parts


def _match(pattern: list[str], path: list[str], *, deep: bool) -> bool:
    if not pattern:
        return not path
    head, rest = pattern[0], pattern[1:]
    if deep and head == "**":
        return any(_match(rest, path[i:], deep=deep) for i in range(len(path) + 1))
    return bool(path) and fnmatchcase(path[0], head) and _match(rest, path[1:], deep=deep)


def listing_discovers(rules: Discover, tree: RepoTree, app_dir: str) -> bool | None:
    """Whether `rules` match `app_dir` of `tree`; None when only a checkout can tell."""
    if rules.command is not None and not (rules.file_name or rules.glob):
        return None
    pattern, deep = (rules.file_name, False) if rules.file_name else (rules.glob, True)
    segments = _segments(pattern)
    if segments is None:
        return None
    prefix = f"{app_dir}/" if app_dir else ""
    below = [p for p in (*tree.entries, *tree.children) if p.startswith(prefix) and p != app_dir]
    if any(p in tree.links for p in below):
        return None
    return any(_match(segments, p[len(prefix) :].split("/"), deep=deep) for p in below)
