"""Which files of a commit make up a plain-directory source (Argo CD's "directory" type).

Argo CD (reposerver findManifests) walks source.path in name order, depth first, taking
files named `*.yaml`, `*.yml`, `*.json` and `*.jsonnet` (listed apart: they are evaluated
in a checkout, jsonnet.py, and do not count against the manifest size cap, their output
does). Subdirectories are
entered only with `directory.recurse`; directories whose name starts with `.` never (unless
the operator includes hidden directories). `exclude` then `include` globs match the path
relative to source.path; they are applied before symlinks are followed, so an excluded
broken link does no harm. A symlinked manifest is read from its (confined) target; a
symlinked directory is not entered (filepath.Walk does not enter it either) and is listed
as skipped. The combined size of the chosen files is checked against the limit before any
of them is read.
"""

from dataclasses import dataclass

from app.model.app_spec import ApplicationSourceDirectory
from app.repo.errors import LimitExceeded, PathError, RenderError
from app.repo.globs import Glob, compile_directory_glob
from app.repo.paths import resolve_path
from app.repo.tree import NodeKind, RepoTree, TreeEntry

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
JSONNET_SUFFIX = ".jsonnet"


@dataclass(frozen=True, slots=True)
class DirectoryOptions:
    """`source.directory` as it affects which files are read; part of the render cache key."""

    recurse: bool = False
    include: str = ""
    exclude: str = ""
    include_hidden: bool = False

    @classmethod
    def of(
        cls, directory: ApplicationSourceDirectory | None, *, include_hidden: bool
    ) -> "DirectoryOptions":
        if directory is None:
            return cls(include_hidden=include_hidden)
        return cls(
            directory.recurse, directory.include.strip(), directory.exclude.strip(), include_hidden
        )


@dataclass(frozen=True, slots=True)
class SelectedFile:
    path: str
    """Repo-relative path of the file as it appears under source.path."""
    content_path: str
    """Where the bytes come from: `path` itself, or a symlink's resolved target."""
    entry: TreeEntry


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file or directory that looked relevant but is not rendered, and why."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class Selection:
    app_dir: str
    files: tuple[SelectedFile, ...]
    skipped: tuple[Skipped, ...]
    jsonnet: tuple[str, ...] = ()
    """Repo-relative paths of the `.jsonnet` files to evaluate, in walk order."""

    @property
    def total_bytes(self) -> int:
        return sum(f.entry.size for f in self.files)


class _Selector:
    def __init__(
        self, tree: RepoTree, options: DirectoryOptions, *, field: str, max_hops: int
    ) -> None:
        self.tree = tree
        self.options = options
        self.field = field
        self.max_hops = max_hops
        self.include: Glob | None = None
        self.exclude: Glob | None = None
        if options.include:
            self.include = compile_directory_glob(
                options.include, field=f"{field}.directory.include"
            )
        if options.exclude:
            self.exclude = compile_directory_glob(
                options.exclude, field=f"{field}.directory.exclude"
            )
        self.files: list[SelectedFile] = []
        self.jsonnet: list[str] = []
        self.skipped: list[Skipped] = []

    def walk(self, directory: str, relative: str) -> None:
        for name in self.tree.list_dir(directory):
            path = f"{directory}/{name}" if directory else name
            rel = f"{relative}/{name}" if relative else name
            kind = self.tree.kind(path)
            if kind is NodeKind.DIR:
                self._enter(path, rel, name)
            elif kind is NodeKind.SYMLINK and self.options.recurse and self._links_to_dir(path):
                self.skipped.append(Skipped(path, "symlinked directory (not entered)"))
            elif name.endswith((*MANIFEST_SUFFIXES, JSONNET_SUFFIX)) and self._wanted(rel):
                self._take(path, kind)

    def _enter(self, path: str, rel: str, name: str) -> None:
        if not self.options.recurse:
            return
        if name.startswith(".") and not self.options.include_hidden:
            self.skipped.append(Skipped(path, "hidden directory (name starts with '.')"))
            return
        self.walk(path, rel)

    def _links_to_dir(self, path: str) -> bool:
        target = resolve_path(
            self.tree,
            path,
            field=f"{self.field}.path",
            max_hops=self.max_hops,
        )
        return self.tree.kind(target) is NodeKind.DIR

    def _wanted(self, rel: str) -> bool:
        if self.exclude is not None and self.exclude.matches(rel):
            return False
        return self.include is None or self.include.matches(rel)

    def _take(self, path: str, kind: NodeKind | None) -> None:
        content_path = path
        if kind is NodeKind.SUBMODULE:
            self.skipped.append(Skipped(path, "submodule (submodules are not fetched)"))
            return
        if kind is NodeKind.SYMLINK:
            content_path = resolve_path(
                self.tree,
                path,
                field=f"{self.field}.path",
                max_hops=self.max_hops,
            )
            target_kind = self.tree.kind(content_path)
            if target_kind is None:
                raise RenderError(
                    f"{self.field}.path: {path!r} is a symlink to "
                    f"{self.tree.links.get(path, '')!r}, which does not exist in the commit; "
                    "fix the link or exclude the file with directory.exclude"
                )
            if target_kind is not NodeKind.FILE:
                self.skipped.append(Skipped(path, f"symlink to a {target_kind.value}"))
                return
        if path.endswith(JSONNET_SUFFIX):
            self.jsonnet.append(path)
            return
        self.files.append(SelectedFile(path, content_path, self.tree.entries[content_path]))


def select_manifests(
    tree: RepoTree,
    app_dir: str,
    options: DirectoryOptions,
    *,
    field: str,
    max_bytes: int,
    max_hops: int,
) -> Selection:
    """The manifest files of the directory `app_dir` (already resolved), in Argo CD's order."""
    if tree.kind(app_dir) is not NodeKind.DIR:
        raise PathError(f"{field}.path", f"{app_dir!r} is not a directory")
    selector = _Selector(tree, options, field=field, max_hops=max_hops)
    selector.walk(app_dir, "")
    selection = Selection(
        app_dir, tuple(selector.files), tuple(selector.skipped), tuple(selector.jsonnet)
    )
    if selection.total_bytes > max_bytes:
        raise LimitExceeded(
            f"{field}.path: the manifests under {app_dir or '/'!r} total "
            f"{selection.total_bytes} bytes, more than the limit of {max_bytes} "
            "(max_manifest_bytes); split the application or raise the limit"
        )
    return selection
