"""Which actions an object offers and what running one returns: Lua first, built-ins
after (see the package docstring for the order)."""

from collections.abc import Iterable, Mapping

from app.engine.actions.builtin import BUILTIN_ACTIONS, BuiltinAction
from app.engine.actions.lua import LuaActions
from app.engine.actions.types import (
    MAX_PARAM_CHARS,
    MAX_PARAMS,
    ActionError,
    ImpactedResource,
    Operation,
    ResourceAction,
)
from app.engine.health.assess import group_kind
from app.model.resource import GroupKind, KubeObject, metadata


def _ordered(sets: Iterable[LuaActions]) -> list[LuaActions]:
    return sorted(sets, key=lambda s: (s.pattern.wildcard, -s.pattern.specificity, str(s.pattern)))


def _describe(obj: KubeObject) -> str:
    meta = metadata(obj)
    where = (
        f"{meta.get('namespace')}/{meta.get('name')}" if meta.get("namespace") else meta.get("name")
    )
    return f"{obj.get('kind')} {where}"


class ActionCatalog:
    """The resource actions in force: configured Lua, then a directory's, then built-in."""

    def __init__(
        self, configured: Iterable[LuaActions] = (), directory: Iterable[LuaActions] = ()
    ) -> None:
        self.sets: tuple[LuaActions, ...] = (*_ordered(configured), *_ordered(directory))

    def _lua(self, kind: GroupKind) -> LuaActions | None:
        return next((s for s in self.sets if s.pattern.matches(kind)), None)

    def _builtins(self, kind: GroupKind, lua: LuaActions | None) -> tuple[BuiltinAction, ...]:
        if lua is not None and not lua.merge_builtin:
            return ()
        return BUILTIN_ACTIONS.get(kind, ())

    def offered(self, obj: KubeObject) -> list[ResourceAction]:
        """The actions `obj` offers, each with whether it is possible now."""
        kind = group_kind(obj)
        lua = self._lua(kind)
        found = {a.name: a for a in (lua.offered(obj) if lua is not None else [])}
        for builtin in self._builtins(kind, lua):
            if builtin.action.name not in found:
                action = builtin.action
                if not builtin.enabled(obj):
                    action = ResourceAction(
                        action.name, True, action.icon_class, action.display_name, action.params
                    )
                found[action.name] = action
        return list(found.values())

    def run(
        self, obj: KubeObject, name: str, params: Mapping[str, str], *, now: str
    ) -> list[ImpactedResource]:
        """What running action `name` on `obj` changes (ActionError with why it cannot)."""
        _check_params(params)
        kind = group_kind(obj)
        offered = {a.name: a for a in self.offered(obj)}
        action = offered.get(name)
        if action is None:
            listed = ", ".join(sorted(offered)) or "none"
            raise ActionError(f"{_describe(obj)} has no action {name!r} (its actions: {listed})")
        if action.disabled:
            raise ActionError(
                f"action {name!r} is disabled for {_describe(obj)} in its current state"
            )
        lua = self._lua(kind)
        if lua is not None and name in lua.definitions:
            return lua.run(obj, name, params)
        builtin = next((b for b in self._builtins(kind, lua) if b.action.name == name), None)
        if builtin is None:
            origin = lua.origin if lua is not None else "Sluice"
            raise ActionError(f"{origin} lists action {name!r} but has no definition of it")
        return [ImpactedResource(Operation.PATCH, builtin.run(obj, params, now))]


def _check_params(params: Mapping[str, str]) -> None:
    if len(params) > MAX_PARAMS:
        raise ActionError(f"{len(params)} parameters given; the limit is {MAX_PARAMS}")
    for key, value in params.items():
        if not key or len(key) > MAX_PARAM_CHARS or len(value) > MAX_PARAM_CHARS:
            raise ActionError(
                f"parameter {key[:40]!r}: names and values must be 1 to "
                f"{MAX_PARAM_CHARS} characters"
            )
