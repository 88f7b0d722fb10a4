"""What a plugin's commands get: the application source's `plugin` block, and the env.

`source.plugin` is Argo CD's: `name`, `env` (a list of `{name, value}`), `parameters` (a
list of `{name, string | array | map}`). The environment is built as Argo CD builds it,
from nothing (no variable of the render worker leaks in) plus PATH and a private HOME:

- the build environment (`ARGOCD_APP_NAME`, `_NAMESPACE`, `_REVISION`, `_REVISION_SHORT`,
  `_REVISION_SHORT_8`, `_SOURCE_PATH`, `_SOURCE_REPO_URL`, `_SOURCE_TARGET_REVISION`),
  `KUBE_VERSION` (the destination's version as `1.29.3`) and `KUBE_API_VERSIONS`;
- each `env` entry as `ARGOCD_ENV_<name>`, its value with the build env substituted;
- the parameters, values substituted, as `ARGOCD_APP_PARAMETERS` (JSON, as Go marshals
  it: keys sorted, `<>&` escaped) and `PARAM_<NAME>` (a string), `PARAM_<NAME>_<KEY>`
  (a map entry), `PARAM_<NAME>_<i>` (an array item), names upper-cased with anything
  outside `A-Z0-9_` made `_`.
"""

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.engine.build_env import substitute
from app.repo.errors import RenderError

MAX_ENTRIES = 256
MAX_VALUE_CHARS = 128 * 1024
_INVALID = re.compile(r"[^A-Z0-9_]")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_KUBE_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True, slots=True)
class PluginParameter:
    name: str
    string: str | None = None
    array: tuple[str, ...] | None = None
    map: dict[str, str] | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.string is not None:
            out["string"] = self.string
        if self.map is not None:
            out["map"] = self.map
        if self.array is not None:
            out["array"] = list(self.array)
        return out


@dataclass(frozen=True, slots=True)
class PluginSource:
    """`source.plugin`, checked."""

    name: str = ""
    env: tuple[tuple[str, str], ...] = ()
    parameters: tuple[PluginParameter, ...] = ()


def _value(raw: Any, where: str) -> str:
    if not isinstance(raw, str):
        raise RenderError(f"{where}: must be a string")
    if len(raw) > MAX_VALUE_CHARS:
        raise RenderError(f"{where}: longer than {MAX_VALUE_CHARS} characters")
    return raw


def _parameter(entry: Any, where: str) -> PluginParameter:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
        raise RenderError(f"{where}: must be a mapping with a name")
    string = entry.get("string")
    array = entry.get("array")
    mapping = entry.get("map")
    if array is not None and not isinstance(array, list):
        raise RenderError(f"{where}.array: must be a list of strings")
    if mapping is not None and not isinstance(mapping, dict):
        raise RenderError(f"{where}.map: must map names to strings")
    return PluginParameter(
        entry["name"],
        None if string is None else _value(string, f"{where}.string"),
        None if array is None else tuple(_value(v, f"{where}.array") for v in array),
        None
        if mapping is None
        else {str(k): _value(v, f"{where}.map") for k, v in mapping.items()},
    )


def parse_plugin_source(raw: Mapping[str, Any] | None, *, field: str) -> PluginSource:
    """`source.plugin` (may be None: discovery with no env or parameters)."""
    if raw is None:
        return PluginSource()
    where = f"{field}.plugin"
    name = raw.get("name") or ""
    if not isinstance(name, str):
        raise RenderError(f"{where}.name: must be a string")
    env_raw = raw.get("env") or []
    params_raw = raw.get("parameters") or []
    if not isinstance(env_raw, list) or not isinstance(params_raw, list):
        raise RenderError(f"{where}: env and parameters must be lists")
    if len(env_raw) + len(params_raw) > MAX_ENTRIES:
        raise RenderError(f"{where}: more than {MAX_ENTRIES} env entries and parameters")
    env: list[tuple[str, str]] = []
    for i, entry in enumerate(env_raw):
        at = f"{where}.env[{i}]"
        if not isinstance(entry, dict) or not _ENV_NAME.match(str(entry.get("name", ""))):
            raise RenderError(f"{at}.name: must be a variable name (letters, digits, _)")
        env.append((str(entry["name"]), _value(entry.get("value", ""), f"{at}.value")))
    parameters = tuple(
        _parameter(entry, f"{where}.parameters[{i}]") for i, entry in enumerate(params_raw)
    )
    return PluginSource(name.strip(), tuple(env), parameters)


def kube_version(git_version: str) -> str:
    """`v1.29.3+k3s1` → `1.29.3`, as Argo CD passes KUBE_VERSION; "" stays ""."""
    match = _KUBE_VERSION.match(git_version.strip())
    if match is None:
        return ""
    major, minor, patch = match.groups()
    return f"{major}.{minor}.{patch or 0}"


def _escaped(name: str) -> str:
    return _INVALID.sub("_", name.upper())


def _go_json(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for char, escape in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        text = text.replace(char, escape)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def plugin_environment(
    build: Mapping[str, str], plugin: PluginSource, *, base: Mapping[str, str]
) -> dict[str, str]:
    """The commands' whole environment: `base` (PATH, HOME), `build`, then the plugin's."""
    env = dict(base)
    env.update(build)
    for name, value in plugin.env:
        env[f"ARGOCD_ENV_{name}"] = substitute(value, build)
    parameters = [
        PluginParameter(
            p.name,
            None if p.string is None else substitute(p.string, build),
            None if p.array is None else tuple(substitute(v, build) for v in p.array),
            None if p.map is None else {k: substitute(v, build) for k, v in p.map.items()},
        )
        for p in plugin.parameters
    ]
    env["ARGOCD_APP_PARAMETERS"] = _go_json([p.as_json() for p in parameters])
    for p in parameters:
        prefix = f"PARAM_{_escaped(p.name)}"
        if p.string is not None:
            env[prefix] = p.string
        for key, value in (p.map or {}).items():
            env[f"{prefix}_{_escaped(key)}"] = value
        for i, value in enumerate(p.array or ()):
            env[f"{prefix}_{i}"] = value
    return env
