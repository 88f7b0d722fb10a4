"""`source.directory.jsonnet` read as Argo CD reads it.

`extVars` and `tlas` are lists of `{name, value, code}`: `code: true` passes the value as
Jsonnet code, else as a string; every value first has the build environment substituted
(`${ARGOCD_APP_NAME}`…, build_env.py), as Argo CD does. `libs` are import directories,
relative to the repository root (a leading `/` is the root too), searched after the
importing file's own directory, the last one first (go-jsonnet's order); the app's
directory is always the first of them. Everything is checked and bounded here, before any
evaluation, and each problem names its field.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.engine.build_env import substitute
from app.repo.errors import RenderError

MAX_VARIABLES = 256
"""Most extVars plus tlas one source may declare."""
MAX_VALUE_CHARS = 256 * 1024
"""Longest single extVar/tla value."""
MAX_LIBS = 64


@dataclass(frozen=True, slots=True)
class JsonnetVar:
    name: str
    value: str
    code: bool


@dataclass(frozen=True, slots=True)
class JsonnetOptions:
    """One source's Jsonnet settings, with the build environment already substituted."""

    ext_vars: tuple[JsonnetVar, ...] = ()
    tlas: tuple[JsonnetVar, ...] = ()
    libs: tuple[str, ...] = ()


def _vars(raw: Any, field: str, variables: Mapping[str, str]) -> tuple[JsonnetVar, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise RenderError(f"{field}: must be a list of {{name, value, code}} entries")
    out: list[JsonnetVar] = []
    seen: set[str] = set()
    for i, entry in enumerate(raw):
        where = f"{field}[{i}]"
        if not isinstance(entry, dict):
            raise RenderError(f"{where}: must be a mapping with name and value")
        name, value, code = entry.get("name"), entry.get("value", ""), entry.get("code", False)
        if not isinstance(name, str) or not name.strip():
            raise RenderError(f"{where}.name: must be a non-empty string")
        if not isinstance(value, str):
            raise RenderError(f"{where}.value: must be a string (quote numbers and booleans)")
        if not isinstance(code, bool):
            raise RenderError(f"{where}.code: must be true or false")
        if len(value) > MAX_VALUE_CHARS:
            raise RenderError(f"{where}.value: longer than {MAX_VALUE_CHARS} characters")
        if name in seen:
            raise RenderError(f"{where}.name: {name!r} is declared twice; keep one")
        seen.add(name)
        out.append(JsonnetVar(name, substitute(value, variables), code))
    return tuple(out)


def parse_jsonnet_options(
    raw: Mapping[str, Any], *, field: str, variables: Mapping[str, str]
) -> JsonnetOptions:
    """`directory.jsonnet` checked, with `variables` (the build env) substituted in values."""
    ext_vars = _vars(raw.get("extVars"), f"{field}.extVars", variables)
    tlas = _vars(raw.get("tlas"), f"{field}.tlas", variables)
    if len(ext_vars) + len(tlas) > MAX_VARIABLES:
        raise RenderError(f"{field}: more than {MAX_VARIABLES} extVars and tlas together")
    libs = raw.get("libs") or []
    if not isinstance(libs, list) or not all(isinstance(p, str) and p.strip() for p in libs):
        raise RenderError(f"{field}.libs: must be a list of repository paths")
    if len(libs) > MAX_LIBS:
        raise RenderError(f"{field}.libs: more than {MAX_LIBS} library paths")
    return JsonnetOptions(ext_vars, tlas, tuple(libs))
