"""What the repository API returns: resolved revisions, rendered directories, counters."""

import codecs
from dataclasses import dataclass
from typing import NamedTuple

from app.repo.directory import Skipped
from app.repo.errors import RenderError

_PER_FILE_OVERHEAD = 256


@dataclass(frozen=True, slots=True)
class ResolvedRevision:
    """The commit a targetRevision names right now, and how it was found."""

    revision: str
    """The targetRevision asked for (empty already replaced by `HEAD`)."""
    commit: str
    """Full commit SHA (annotated tags peeled)."""
    ref: str
    """The ref it came from (`refs/heads/main`, `refs/tags/v1.2.3`, `HEAD`), "" for a SHA."""
    reason: str
    """How it was resolved, for users: "branch main", "tag v1.4.2, the highest tag…"."""


class ManifestFile(NamedTuple):
    """One manifest file: repo-relative path and decoded text.

    A (name, content) pair, so `render.files` goes straight into
    `app.engine.manifests.load_manifests`.
    """

    path: str
    text: str


@dataclass(frozen=True, slots=True)
class DirectoryRender:
    """The manifest files of a directory source at one commit, in Argo CD's walk order."""

    repo: str
    """Repository display URL (no credentials)."""
    commit: str
    path: str
    """source.path resolved (repo-relative, "" for the root)."""
    files: tuple[ManifestFile, ...]
    skipped: tuple[Skipped, ...]
    """Files and directories seen but not rendered, with the reason (hidden, links…)."""
    jsonnet: tuple[str, ...] = ()
    """`.jsonnet` files (repo-relative, walk order) the caller evaluates (jsonnet.py)."""

    @property
    def total_bytes(self) -> int:
        return sum(len(f.text) for f in self.files)

    @property
    def weight(self) -> int:
        """Approximate memory held, for the render cache."""
        listed = sum(len(p) + _PER_FILE_OVERHEAD for p in self.jsonnet)
        return (
            sum(len(f.text) + len(f.path) + _PER_FILE_OVERHEAD for f in self.files) + listed + 1024
        )


@dataclass
class RepoStats:
    """Counters of the work actually done (cache hits and shared calls excluded)."""

    ls_remote: int = 0
    fetch: int = 0
    history_fetch: int = 0
    tree_load: int = 0
    render: int = 0
    render_cache_hit: int = 0
    checkout: int = 0


def decode_manifest(data: bytes, *, path: str, field: str) -> str:
    """File bytes as text: UTF-8 (BOM dropped) or UTF-16 with a BOM; else RenderError."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    elif data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RenderError(
            f"{field}.path: {path!r} is not UTF-8 text (invalid byte at offset {e.start}); "
            "save it as UTF-8"
        ) from None
