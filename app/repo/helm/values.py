"""The values of a Helm render: value files, `values`, parameters and file parameters.

Argo CD's rules, bounded (THREATS, "Rendering"):

- `valueFiles` are relative to the chart directory (a leading `/` means the repository
  root); `$name/path` reads `path` from the checkout of the multi-source app's source with
  `ref: name`, at the commit that source resolved to. Each path goes through the one path
  resolver of its checkout, so `..`, absolute symlinks and links out of the repository
  are refused by name. `${ARGOCD_APP_*}` references in the path are expanded first.
- A missing value file is an error naming it, unless `ignoreMissingValueFiles`.
- An `http(s)://` value file is refused unless the operator allows remote value files
  (`HelmSettings.allow_remote_value_files`); then it is fetched without credentials
  (`RemoteReader`), within the same byte budget. Any other `scheme://` is refused.
- `values` (or `valuesObject`, which wins) comes after every value file.
- `parameters` become `--set` (`--set-string` with `forceString`), their values expanded
  from the build environment and their commas escaped as Argo CD escapes them (a `{a,b}`
  list is left as is); `fileParameters` become `--set-file` with the file read from the
  checkout under the same rules as value files.
- Everything read adds up to at most `HelmSettings.max_value_file_bytes`.
"""

import os
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from app.engine.build_env import substitute
from app.repo.errors import LimitExceeded, PathError, RenderError
from app.repo.helm.options import HelmOptions
from app.repo.worktree import WorkTree

_UNESCAPED_COMMA = re.compile(r"(?<!\\),")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


RemoteReader = Callable[[str, int], Awaitable[bytes]]
"""Fetches a remote value file (URL, most bytes); given only when the operator allows it."""


@dataclass(frozen=True, slots=True)
class ChartPlace:
    """Where the chart's files are: a checkout and the chart directory inside it."""

    work: WorkTree
    chart_dir: str
    """Repository-relative, already resolved ("" for the root)."""


@dataclass(slots=True)
class Values:
    documents: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    set: list[tuple[str, str]] = field(default_factory=list)
    set_string: list[tuple[str, str]] = field(default_factory=list)
    set_file: list[tuple[str, str]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    """Value files skipped because `ignoreMissingValueFiles` is set and they do not exist."""


def escape_commas(value: str) -> str:
    """A `--set` value as Argo CD passes it: commas escaped, unless it is a `{…}` list."""
    if value.startswith("{") and value.endswith("}"):
        return value
    return _UNESCAPED_COMMA.sub(r"\\,", value)


class _Budget:
    def __init__(self, limit: int) -> None:
        self.left = limit
        self.limit = limit

    def take(self, size: int, what: str) -> None:
        self.left -= size
        if self.left < 0:
            raise LimitExceeded(
                f"{what}: the value files and file parameters add up to more than "
                f"{self.limit} bytes (HelmSettings.max_value_file_bytes)"
            )


def _ref_name(listed: str, env: Mapping[str, str]) -> str | None:
    """The ref a `$name/…` path names (a build-environment variable is no ref)."""
    if not listed.startswith("$") or listed.startswith("${"):
        return None
    name = listed[1:].partition("/")[0]
    return None if name in env else name


def _locate(
    listed: str,
    place: ChartPlace,
    refs: Mapping[str, WorkTree],
    env: Mapping[str, str],
    where: str,
) -> tuple[Path, str]:
    """The file path and repository-relative name `listed` stands for: a `$ref/` path is
    resolved in that source's checkout (the rest expanded from `env`), anything else is
    expanded, then resolved from the chart directory."""
    name = _ref_name(listed, env)
    if name is not None:
        rest = substitute(listed[1:].partition("/")[2], env)
        raw = listed
        work = refs.get(name)
        if work is None:
            known = ", ".join(f"${r}" for r in sorted(refs)) or "none"
            raise RenderError(
                f"{where}: {raw!r} names the source with ref {name!r}, and the app has no "
                f"such source (ref sources: {known}); add one with `ref: {name}` to "
                "spec.sources, or fix the name"
            )
        shown = f"${name}/{rest}"
        try:
            return work.resolve("/" + rest, field=where), shown
        except PathError as e:
            text = e.message.replace(f"{where}: {'/' + rest!r}", repr(shown), 1)
            raise PathError(where, text) from None

    raw = substitute(listed, env)
    path = place.work.resolve(raw, field=where, base=place.chart_dir)
    return path, os.path.relpath(path, place.work.root)


def _read(path: Path, shown: str, where: str, budget: _Budget) -> str | None:
    """The file's text, None when it does not exist; PathError when it is not a file."""
    if not path.exists():
        return None
    if not path.is_file():
        raise PathError(where, f"{shown!r} is not a file")
    size = path.stat().st_size
    budget.take(size, where)
    try:
        return path.read_text("utf-8")
    except UnicodeDecodeError:
        raise RenderError(f"{where}: {shown!r} is not UTF-8 text") from None


async def _value_file(
    listed: str,
    *,
    where: str,
    place: ChartPlace,
    refs: Mapping[str, WorkTree],
    env: Mapping[str, str],
    budget: _Budget,
    remote: RemoteReader | None,
) -> str | None:
    raw = substitute(listed, env)
    if _URL.match(raw):
        if remote is None or not raw.startswith(("https://", "http://")):
            raise RenderError(
                f"{where}: {raw[:200]!r} is a remote value file, and remote value files are "
                "disabled on this server; commit the file to the repository or to a `ref` "
                "source (an operator may allow them: SLUICE_HELM_REMOTE_VALUE_FILES)"
            )
        data = await remote(raw, budget.left)
        budget.take(len(data), where)
        return data.decode("utf-8", "replace")
    path, shown = _locate(listed, place, refs, env, where)
    return _read(path, shown, where, budget)


async def collect_values(
    options: HelmOptions,
    place: ChartPlace,
    refs: Mapping[str, WorkTree],
    env: Mapping[str, str],
    *,
    field: str,
    max_bytes: int,
    remote: RemoteReader | None = None,
) -> Values:
    """Every values input of the render, in Helm's order; errors name `field`'s entry."""
    found = Values()
    budget = _Budget(max_bytes)
    for i, listed in enumerate(options.value_files):
        where = f"{field}.valueFiles[{i}]"
        text = await _value_file(
            listed, where=where, place=place, refs=refs, env=env, budget=budget, remote=remote
        )
        if text is None:
            if options.ignore_missing_value_files:
                found.missing.append(listed)
                continue
            raise PathError(
                where,
                f"{listed!r} does not exist at {place.work.commit[:12]}; add the file, fix the "
                "path, or set ignoreMissingValueFiles",
            )
        found.documents.append(text)
        found.names.append(where)
    if options.values.strip():
        found.documents.append(options.values)
        found.names.append(f"{field}.values")
    for p in options.parameters:
        target = found.set_string if p.force_string else found.set
        target.append((p.name, escape_commas(substitute(p.value, env))))
    for i, fp in enumerate(options.file_parameters):
        where = f"{field}.fileParameters[{i}].path"
        path, shown = _locate(fp.path, place, refs, env, where)
        text = _read(path, shown, where, budget)
        if text is None:
            raise PathError(where, f"{fp.path!r} does not exist at {place.work.commit[:12]}")
        found.set_file.append((fp.name, text))
    return found


def referenced_refs(options: HelmOptions, env: Mapping[str, str]) -> set[str]:
    """The `ref` sources the value files and file parameters read from."""
    paths = [*options.value_files, *(fp.path for fp in options.file_parameters)]
    return {name for p in paths if (name := _ref_name(p, env)) is not None}
