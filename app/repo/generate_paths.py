"""`argocd.argoproj.io/manifest-generate-paths`: did a push touch any path an app renders from?

The annotation is a `;`-separated list. An entry starting with `/` is relative to the
repository root; any other entry is relative to each source's path (`.` is the source path
itself). A changed file counts when it equals an entry, lies under it, or matches it as a
`filepath.Match` glob (`*` does not cross `/`). As in Argo CD (util/app/path), no
annotation, an annotation with no entries, or an unknown list of changed files (an empty
list) all mean "refresh".
"""

import posixpath
from collections.abc import Iterable, Sequence

from app.model.annotations import MANIFEST_GENERATE_PATHS
from app.repo.globs import compile_path_glob

_FIELD = f"metadata.annotations[{MANIFEST_GENERATE_PATHS!r}]"


def refresh_paths(annotation: str | None, source_paths: Sequence[str]) -> tuple[str, ...]:
    """Repo-relative paths (no leading `/`) the annotation names, for these source paths."""
    if not annotation:
        return ()
    paths: list[str] = []
    for item in (part.strip() for part in annotation.split(";")):
        if not item:
            continue
        if item.startswith("/"):
            paths.append(posixpath.normpath(item).lstrip("/"))
            continue
        for source_path in source_paths:
            joined = posixpath.normpath(posixpath.join("/", source_path.strip(), item))
            paths.append(joined.lstrip("/"))
    return tuple(dict.fromkeys(paths))


def _under(path: str, directory: str) -> bool:
    return directory in ("", ".") or path == directory or path.startswith(directory + "/")


def files_changed(paths: Sequence[str], changed_files: Iterable[str]) -> bool:
    """True when any changed file is at, under or glob-matched by one of `paths`.

    A malformed glob in the annotation raises PathError naming the annotation.
    """
    changed = [f.strip("/") for f in changed_files]
    if not changed or not paths:
        return True
    globs = [compile_path_glob(p, field=_FIELD) for p in paths]
    for file in changed:
        for path, glob in zip(paths, globs, strict=True):
            if _under(file, path) or glob.matches(file):
                return True
    return False
