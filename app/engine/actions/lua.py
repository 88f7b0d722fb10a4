"""Resource actions in Lua, Argo CD's format, from configuration or a directory.

Configuration: `resource.customizations.actions.<group>_<kind>` (`<Kind>` for the core
group), a YAML map with `discovery.lua`, `definitions: [{name, action.lua}]` and
optionally `mergeBuiltinActions`. A directory: `<group>/<Kind>/actions/discovery.lua`
and `<group>/<Kind>/actions/<name>/action.lua` (core kinds sit directly under the root).

`discovery.lua` sees `obj` and returns a table of actions by name, each a table with
optional `disabled`, `iconClass`, `displayName` and `params` (a list of `{name, type,
default}`). `action.lua` sees `obj` and `actionParams` (name → value, strings) and
returns the changed object, or (Argo CD's newer form) a list of `{operation = "patch" |
"create", resource = ...}`. Scripts run in the health checks' sandbox, on Lua 5.1.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from typing import Any

from app.engine.actions.types import (
    ActionError,
    ActionParam,
    ImpactedResource,
    Operation,
    ResourceAction,
)
from app.engine.health.customizations import KindPattern, config_pattern, tree_pattern
from app.engine.health.lua_sandbox import LuaScriptError, default_sandbox
from app.model.errors import SpecError
from app.model.resource import KubeObject, metadata

CONFIG_PREFIX = "resource.customizations.actions."
DISCOVERY = "discovery.lua"
ACTION = "action.lua"
ACTIONS_DIR = "actions"
MAX_ACTIONS = 64
"""Actions one kind may define."""
_FIELDS = ("discovery.lua", "definitions", "mergeBuiltinActions")


@dataclass(frozen=True)
class LuaActions:
    """The Lua actions of the kinds one pattern covers."""

    pattern: KindPattern
    origin: str
    """The configuration key or directory they came from, for every message."""
    discovery: Any
    definitions: Mapping[str, Any] = field(default_factory=dict)
    merge_builtin: bool = False

    def offered(self, obj: KubeObject) -> list[ResourceAction]:
        """The actions discovery.lua offers for `obj` (ActionError if it fails)."""
        found = _evaluate(self.discovery, f"{self.origin} {DISCOVERY}", obj, {})
        if isinstance(found, list) and not found:
            found = {}
        if not isinstance(found, dict):
            raise ActionError(
                f"{self.origin} {DISCOVERY} returned {type(found).__name__}, expected a table "
                "of actions by name"
            )
        return [_action(name, props, self.origin) for name, props in sorted(found.items())]

    def run(self, obj: KubeObject, name: str, params: Mapping[str, str]) -> list[ImpactedResource]:
        chunk = self.definitions.get(name)
        if chunk is None:
            raise ActionError(f"{self.origin} has no definition of action {name!r}")
        where = f"{self.origin} action {name!r}"
        result = _evaluate(chunk, where, obj, params)
        if isinstance(result, dict):
            return [ImpactedResource(Operation.PATCH, _same_object(obj, result, where))]
        if isinstance(result, list):
            return [_impacted(obj, entry, f"{where}[{i + 1}]") for i, entry in enumerate(result)]
        raise ActionError(f"{where} returned {type(result).__name__}, expected the object")


def _evaluate(chunk: Any, where: str, obj: KubeObject, params: Mapping[str, str]) -> object:
    try:
        return default_sandbox().evaluate(chunk, where, obj, params)
    except LuaScriptError as e:
        raise ActionError(str(e)) from None


def _action(name: object, props: object, origin: str) -> ResourceAction:
    if not isinstance(name, str) or not name:
        raise ActionError(f"{origin} {DISCOVERY} returned an action whose name is not a string")
    if isinstance(props, list) and not props:
        props = {}
    if not isinstance(props, dict):
        raise ActionError(f"{origin} {DISCOVERY}: action {name!r} must be a table")
    raw_params = props.get("params") or []
    if not isinstance(raw_params, list):
        raise ActionError(f"{origin} {DISCOVERY}: action {name!r} params must be a list")
    params = tuple(
        ActionParam(
            str(p.get("name", "")), type=str(p.get("type", "")), default=str(p.get("default", ""))
        )
        for p in raw_params
        if isinstance(p, dict)
    )
    return ResourceAction(
        name,
        disabled=props.get("disabled") is True,
        icon_class=str(props.get("iconClass") or ""),
        display_name=str(props.get("displayName") or ""),
        params=params,
    )


def _restore_lists(new: object, old: object) -> object:
    """Lua has one table type: an empty table where the object had a list is a list."""
    if isinstance(new, dict) and not new and isinstance(old, list):
        return []
    if isinstance(new, dict) and isinstance(old, dict):
        return {k: _restore_lists(v, old.get(k)) for k, v in new.items()}
    if isinstance(new, list) and isinstance(old, list):
        return [_restore_lists(v, old[i] if i < len(old) else None) for i, v in enumerate(new)]
    return new


def _identity(obj: KubeObject) -> tuple[str, str, str, str]:
    meta = metadata(obj)
    return (
        str(obj.get("apiVersion", "")).rpartition("/")[0],
        str(obj.get("kind", "")),
        str(meta.get("namespace") or ""),
        str(meta.get("name") or ""),
    )


def _same_object(obj: KubeObject, new: dict[str, Any], where: str) -> KubeObject:
    restored = _restore_lists(new, obj)
    assert isinstance(restored, dict)
    if _identity(restored) != _identity(obj):
        group, kind, namespace, name = _identity(restored)
        raise ActionError(
            f"{where} returned another object ({group}/{kind} {namespace}/{name}); an action "
            "may only change the object it runs on, or create new ones"
        )
    return restored


def _impacted(obj: KubeObject, entry: object, where: str) -> ImpactedResource:
    if not isinstance(entry, dict) or not isinstance(entry.get("resource"), dict):
        raise ActionError(f"{where} must be a table {{operation = ..., resource = ...}}")
    operation = entry.get("operation")
    if operation == Operation.PATCH:
        return ImpactedResource(Operation.PATCH, _same_object(obj, entry["resource"], where))
    if operation != Operation.CREATE:
        raise ActionError(f"{where}: operation {operation!r} is not one of patch, create")
    created: dict[str, Any] = entry["resource"]
    meta = created.get("metadata")
    if not created.get("apiVersion") or not created.get("kind") or not isinstance(meta, dict):
        raise ActionError(f"{where}: a created resource needs apiVersion, kind and metadata")
    if not meta.get("name"):
        raise ActionError(f"{where}: a created resource needs metadata.name")
    namespace = str(metadata(obj).get("namespace") or "")
    meta.setdefault("namespace", namespace)
    if namespace and meta["namespace"] != namespace:
        raise ActionError(
            f"{where}: a created resource must be in the namespace {namespace!r} of the "
            f"object the action runs on, not {meta['namespace']!r}"
        )
    return ImpactedResource(Operation.CREATE, created)


def _compile(source: object, origin: str) -> Any:
    if not isinstance(source, str) or not source.strip():
        raise SpecError(origin, "must be a Lua script")
    return default_sandbox().compile_chunk(source, origin)


def _definitions(raw: object, where: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise SpecError(where, "must be a list of {name, action.lua}")
    if len(raw) > MAX_ACTIONS:
        raise SpecError(where, f"defines {len(raw)} actions; the limit is {MAX_ACTIONS}")
    found: dict[str, Any] = {}
    for i, entry in enumerate(raw):
        at = f"{where}[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise SpecError(at, "must be a map with name and action.lua")
        found[entry["name"]] = _compile(entry.get(ACTION), f"{at}.{ACTION}")
    return found


def configured_actions(key: str, data: object) -> LuaActions:
    """One `resource.customizations.actions.<group>_<kind>` value, already read as YAML.

    Raises SpecError naming the key and field for anything that cannot be used.
    """
    pattern = config_pattern(key, CONFIG_PREFIX)
    if not isinstance(data, dict):
        raise SpecError(key, "must be a YAML map with discovery.lua and definitions")
    unknown = sorted(str(k) for k in data if k not in _FIELDS)
    if unknown:
        raise SpecError(
            key, f"unknown field(s) {', '.join(unknown)}; expected {', '.join(_FIELDS)}"
        )
    merge = data.get("mergeBuiltinActions", False)
    if not isinstance(merge, bool):
        raise SpecError(f"{key}.mergeBuiltinActions", "must be true or false")
    return LuaActions(
        pattern,
        key,
        _compile(data.get(DISCOVERY), f"{key}.{DISCOVERY}"),
        _definitions(data.get("definitions"), f"{key}.definitions"),
        merge,
    )


def _walk(directory: Traversable, parts: list[str]) -> Iterable[tuple[list[str], Traversable]]:
    for child in sorted(directory.iterdir(), key=lambda c: c.name):
        if not child.is_dir() or child.name == "testdata":
            continue
        if child.name == ACTIONS_DIR and child.joinpath(DISCOVERY).is_file():
            yield parts, child
        else:
            yield from _walk(child, [*parts, child.name])


def load_actions_tree(root: Traversable, name: str) -> list[LuaActions]:
    """Every `actions/` directory of a resource_customizations tree; `name` is how
    messages call the root. Raises SpecError naming the file for anything unusable."""
    found = []
    for parts, directory in _walk(root, []):
        origin = "/".join([name, *parts, ACTIONS_DIR])
        pattern = tree_pattern(parts, origin)
        discovery = _compile(
            directory.joinpath(DISCOVERY).read_text("utf-8"), f"{origin}/{DISCOVERY}"
        )
        definitions = {
            child.name: _compile(
                child.joinpath(ACTION).read_text("utf-8"), f"{origin}/{child.name}/{ACTION}"
            )
            for child in sorted(directory.iterdir(), key=lambda c: c.name)
            if child.is_dir() and child.joinpath(ACTION).is_file()
        }
        found.append(LuaActions(pattern, origin, discovery, definitions))
    return found
