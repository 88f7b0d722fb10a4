"""`source.helm` as typed options: every field Argo CD's ApplicationSourceHelm has.

`helm_options(block, field=...)` checks the types and sizes of what the Application says
and refuses unknown fields by name (a typo would otherwise be ignored in silence). It reads
nothing from disk or network: value files, file parameters and `$ref/` paths are resolved
later against the checkout (values.py).
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from app.repo.errors import RenderError

MAX_LIST_ITEMS = 500
"""Most valueFiles, parameters, fileParameters or apiVersions one source may list."""
MAX_TEXT = 1 << 20
"""Longest `values` string (and valuesObject once serialised), in characters."""
MAX_NAME = 4096
"""Longest parameter name, value-file path or other short string."""


@dataclass(frozen=True, slots=True)
class HelmParameter:
    """One `parameters` entry: Helm's `--set name=value` (`--set-string` if forced)."""

    name: str
    value: str
    force_string: bool = False


@dataclass(frozen=True, slots=True)
class HelmFileParameter:
    """One `fileParameters` entry: Helm's `--set-file name=path` (path in the checkout)."""

    name: str
    path: str


@dataclass(frozen=True, slots=True)
class HelmOptions:
    value_files: tuple[str, ...] = ()
    values: str = ""
    """The `values` string, or `valuesObject` as YAML when that is set (it wins)."""
    parameters: tuple[HelmParameter, ...] = ()
    file_parameters: tuple[HelmFileParameter, ...] = ()
    release_name: str = ""
    namespace: str = ""
    kube_version: str = ""
    api_versions: tuple[str, ...] = ()
    skip_crds: bool = False
    skip_schema_validation: bool = False
    skip_tests: bool = False
    pass_credentials: bool = False
    ignore_missing_value_files: bool = False
    version: str = ""


_KNOWN = {
    "valueFiles",
    "values",
    "valuesObject",
    "parameters",
    "fileParameters",
    "releaseName",
    "namespace",
    "kubeVersion",
    "apiVersions",
    "skipCrds",
    "skipSchemaValidation",
    "skipTests",
    "passCredentials",
    "ignoreMissingValueFiles",
    "version",
}


def _text(block: Mapping[str, Any], key: str, field: str, limit: int = MAX_NAME) -> str:
    value = block.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RenderError(f"{field}.{key}: must be a string, got {type(value).__name__}")
    if len(value) > limit:
        raise RenderError(f"{field}.{key}: longer than {limit} characters")
    return value


def _flag(block: Mapping[str, Any], key: str, field: str) -> bool:
    value = block.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise RenderError(f"{field}.{key}: must be true or false, got {value!r}"[:300])
    return value


def _list(block: Mapping[str, Any], key: str, field: str) -> list[Any]:
    value = block.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise RenderError(f"{field}.{key}: must be a list")
    if len(value) > MAX_LIST_ITEMS:
        raise RenderError(f"{field}.{key}: more than {MAX_LIST_ITEMS} entries")
    return value


def _strings(block: Mapping[str, Any], key: str, field: str) -> tuple[str, ...]:
    items = _list(block, key, field)
    for i, item in enumerate(items):
        if not isinstance(item, str) or len(item) > MAX_NAME:
            raise RenderError(f"{field}.{key}[{i}]: must be a string of at most {MAX_NAME}")
    return tuple(items)


def _entry(item: Any, where: str, keys: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(item, dict):
        raise RenderError(f"{where}: must be an object with {', '.join(keys)}")
    unknown = sorted(set(item) - set(keys))
    if unknown:
        raise RenderError(f"{where}: unknown field {unknown[0]!r}; known: {', '.join(keys)}")
    return item


def _parameters(block: Mapping[str, Any], field: str) -> tuple[HelmParameter, ...]:
    found = []
    for i, item in enumerate(_list(block, "parameters", field)):
        where = f"{field}.parameters[{i}]"
        entry = _entry(item, where, ("name", "value", "forceString"))
        name = _text(entry, "name", where)
        if not name.strip():
            raise RenderError(f"{where}.name: must not be empty")
        value = entry.get("value", "")
        if isinstance(value, bool | int | float):
            value = str(value).lower() if isinstance(value, bool) else str(value)
        if not isinstance(value, str):
            raise RenderError(f"{where}.value: must be a string")
        if len(value) > MAX_TEXT:
            raise RenderError(f"{where}.value: longer than {MAX_TEXT} characters")
        found.append(HelmParameter(name, value, _flag(entry, "forceString", where)))
    return tuple(found)


def _file_parameters(block: Mapping[str, Any], field: str) -> tuple[HelmFileParameter, ...]:
    found = []
    for i, item in enumerate(_list(block, "fileParameters", field)):
        where = f"{field}.fileParameters[{i}]"
        entry = _entry(item, where, ("name", "path"))
        name, path = _text(entry, "name", where), _text(entry, "path", where)
        if not name.strip() or not path.strip():
            raise RenderError(f"{where}: needs both name and path")
        found.append(HelmFileParameter(name, path))
    return tuple(found)


def _values(block: Mapping[str, Any], field: str) -> str:
    obj = block.get("valuesObject")
    if obj is not None:
        if not isinstance(obj, dict):
            raise RenderError(f"{field}.valuesObject: must be an object (a map of values)")
        text = yaml.safe_dump(obj, sort_keys=False)
        if len(text) > MAX_TEXT:
            raise RenderError(f"{field}.valuesObject: larger than {MAX_TEXT} characters")
        return text
    return _text(block, "values", field, MAX_TEXT)


def helm_options(block: Mapping[str, Any] | None, *, field: str) -> HelmOptions:
    """The typed `source.helm` block (`field` names it: `spec.source.helm`)."""
    if not block:
        return HelmOptions()
    unknown = sorted(set(block) - _KNOWN)
    if unknown:
        raise RenderError(
            f"{field}.{unknown[0]}: not a field of source.helm; the known fields are "
            f"{', '.join(sorted(_KNOWN))}"
        )
    version = _text(block, "version", field)
    if version not in ("", "v3"):
        raise RenderError(f"{field}.version: {version!r} is not supported; use v3 or leave it out")
    return HelmOptions(
        value_files=_strings(block, "valueFiles", field),
        values=_values(block, field),
        parameters=_parameters(block, field),
        file_parameters=_file_parameters(block, field),
        release_name=_text(block, "releaseName", field),
        namespace=_text(block, "namespace", field),
        kube_version=_text(block, "kubeVersion", field),
        api_versions=_strings(block, "apiVersions", field),
        skip_crds=_flag(block, "skipCrds", field),
        skip_schema_validation=_flag(block, "skipSchemaValidation", field),
        skip_tests=_flag(block, "skipTests", field),
        pass_credentials=_flag(block, "passCredentials", field),
        ignore_missing_value_files=_flag(block, "ignoreMissingValueFiles", field),
        version=version,
    )
