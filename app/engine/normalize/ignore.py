"""ignoreDifferences: which fields of which objects are left out of the comparison.

Rules come from two places, in this order: the Application's `spec.ignoreDifferences`
and the system-wide customizations (argocd-cm `resource.customizations.ignoreDifferences.
<group_kind>` / `.all`, given to the engine as a list). A rule applies to an object when
its group and kind match (globs: `*`, `?`, `[...]`; an empty group is the core group) and,
when set, its name and namespace are equal. A matching rule removes from both the target
and the live object:

- each `jsonPointers` entry (RFC 6901; a pointer to nothing is a no-op),
- each `jqPathExpressions` entry, evaluated as `del(expr)` with a deadline (see
  `app.engine.normalize.jq_paths` for how the cost is bounded),
- the fields owned by each of the `managedFieldsManagers` (read from the live object's
  managedFields; applied by `app.engine.normalize`).

Rules are validated and compiled once (`compile_ignore_rules`); a bad pointer or jq
expression is a SpecError naming the rule's field, never a silently skipped rule.

With the `RespectIgnoreDifferences=true` sync option, `respect_ignore_differences` makes
the target carry the live values of every ignored field before it is applied, so a sync
never overwrites them (status is never copied).
"""

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from app.engine.merge import (
    GroupVersionKind,
    apply_strategic_patch,
    create_three_way_strategic_patch,
)
from app.engine.normalize.jq_paths import (
    JqDeadlineExceeded,
    JqEvaluationError,
    JqPath,
    compile_jq_path,
)
from app.model.app_spec import ResourceIgnoreDifferences
from app.model.errors import SpecError
from app.model.resource import GroupKind, KubeObject, ResourceKey

APP_FIELD = "spec.ignoreDifferences"
SYSTEM_FIELD = "resource.customizations.ignoreDifferences"


def parse_pointer(pointer: str, field_path: str) -> tuple[str, ...]:
    """RFC 6901 pointer -> reference tokens (`~1` is `/`, `~0` is `~`)."""
    if not pointer.startswith("/"):
        raise SpecError(
            field_path, f"JSON pointer {pointer!r} must start with '/', e.g. /spec/replicas"
        )
    tokens = pointer[1:].split("/")
    for token in tokens:
        rest = token.replace("~0", "").replace("~1", "")
        if "~" in rest:
            raise SpecError(
                field_path, f"JSON pointer {pointer!r} has a '~' not followed by 0 or 1"
            )
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in tokens)


def _remove(value: Any, tokens: tuple[str, ...]) -> Any:
    """`value` without the member at `tokens`, copying only the containers on the path."""
    head, rest = tokens[0], tokens[1:]
    if isinstance(value, dict):
        if head not in value:
            return value
        child = value[head]
        if rest:
            new_child = _remove(child, rest)
            return value if new_child is child else {**value, head: new_child}
        return {k: v for k, v in value.items() if k != head}
    if isinstance(value, list) and head.isdigit() and int(head) < len(value):
        index = int(head)
        if rest:
            new_child = _remove(value[index], rest)
            if new_child is value[index]:
                return value
            return [*value[:index], new_child, *value[index + 1 :]]
        return [*value[:index], *value[index + 1 :]]
    return value


def remove_pointer(obj: KubeObject, tokens: tuple[str, ...]) -> KubeObject:
    """`obj` without the member at a parsed JSON pointer (unchanged if there is none)."""
    result: KubeObject = _remove(obj, tokens)
    return result


@dataclass(frozen=True, slots=True)
class IgnoreRule:
    """One compiled ignoreDifferences entry; `origin` names where it was written."""

    group: str
    kind: str
    name: str
    namespace: str
    origin: str
    pointers: tuple[tuple[str, ...], ...] = ()
    jq_paths: tuple[JqPath, ...] = ()
    managers: tuple[str, ...] = ()

    def matches(self, key: ResourceKey) -> bool:
        return (
            (self.name in ("", key.name))
            and (self.namespace in ("", key.namespace))
            and _glob(self.group, key.group)
            and _glob(self.kind, key.kind)
        )


def _glob(pattern: str, value: str) -> bool:
    if pattern in (value, "*"):
        return True
    return any(c in pattern for c in "*?[") and fnmatch.fnmatchcase(value, pattern)


def _compile(entry: ResourceIgnoreDifferences, origin: str) -> IgnoreRule:
    if not entry.kind:
        raise SpecError(f"{origin}.kind", "is required (a kind or a glob such as '*')")
    pointers = tuple(
        parse_pointer(p, f"{origin}.jsonPointers[{i}]") for i, p in enumerate(entry.json_pointers)
    )
    jq_paths = tuple(
        compile_jq_path(e, f"{origin}.jqPathExpressions[{i}]")
        for i, e in enumerate(entry.jq_path_expressions)
    )
    return IgnoreRule(
        group=entry.group,
        kind=entry.kind,
        name=entry.name,
        namespace=entry.namespace,
        origin=origin,
        pointers=pointers,
        jq_paths=jq_paths,
        managers=tuple(entry.managed_fields_managers),
    )


@dataclass(frozen=True, slots=True)
class IgnoreResult:
    """An object with the ignored fields removed, and any problem met doing so."""

    obj: KubeObject
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class IgnoreRules:
    """All rules in effect for one app, matched per resource (cached per group/kind)."""

    rules: tuple[IgnoreRule, ...] = ()
    _by_kind: dict[GroupKind, tuple[IgnoreRule, ...]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def matching(self, key: ResourceKey) -> tuple[IgnoreRule, ...]:
        gk = key.group_kind
        candidates = self._by_kind.get(gk)
        if candidates is None:
            candidates = tuple(
                r for r in self.rules if _glob(r.group, gk.group) and _glob(r.kind, gk.kind)
            )
            self._by_kind[gk] = candidates
        if not candidates:
            return ()
        return tuple(r for r in candidates if r.matches(key))

    @cached_property
    def has_managers(self) -> bool:
        return any(r.managers for r in self.rules)

    def managers(self, key: ResourceKey) -> tuple[str, ...]:
        """managedFieldsManagers of the rules matching `key`, in order, without repeats."""
        if not self.has_managers:
            return ()
        names: dict[str, None] = {}
        for rule in self.matching(key):
            names.update(dict.fromkeys(rule.managers))
        return tuple(names)

    def apply(self, obj: KubeObject, key: ResourceKey, deadline: float = 1.0) -> IgnoreResult:
        """`obj` without the pointer and jq paths of the rules matching `key`."""
        rules = self.matching(key)
        if not rules:
            return IgnoreResult(obj)
        problems: list[str] = []
        for rule in rules:
            for tokens in rule.pointers:
                obj = remove_pointer(obj, tokens)
            for jq_path in rule.jq_paths:
                try:
                    obj = jq_path.delete_from(obj, deadline)
                except (JqDeadlineExceeded, JqEvaluationError) as e:
                    problems.append(f"{rule.origin}: {e}")
        return IgnoreResult(obj, tuple(problems))


def check_rule(entry: ResourceIgnoreDifferences, origin: str) -> None:
    """Validate one rule exactly as it will be compiled; SpecError names `origin`'s field."""
    _compile(entry, origin)


def compile_ignore_rules(
    app_rules: Sequence[ResourceIgnoreDifferences],
    system_rules: Sequence[ResourceIgnoreDifferences] = (),
) -> IgnoreRules:
    """Validate and compile the app's and the system's rules; SpecError names the bad field."""
    compiled = [_compile(e, f"{APP_FIELD}[{i}]") for i, e in enumerate(app_rules)]
    compiled += [_compile(e, f"{SYSTEM_FIELD}[{i}]") for i, e in enumerate(system_rules)]
    return IgnoreRules(tuple(compiled))


def respect_ignore_differences(
    target: KubeObject,
    live: KubeObject | None,
    key: ResourceKey,
    rules: IgnoreRules,
    deadline: float = 1.0,
) -> IgnoreResult:
    """`target` with its ignored fields replaced by the live values (never `status`).

    The ignored fields are removed from the target, then the patch that restores them
    on the live object (live with its ignored fields removed -> live) is applied to it:
    a strategic merge for built-in kinds, so a list item (a container, an env var) is
    restored by its key instead of replacing the whole list.
    """
    if live is None or not rules.matching(key):
        return IgnoreResult(target)
    ignored_live = rules.apply(live, key, deadline)
    ignored_target = rules.apply(target, key, deadline)
    problems = ignored_live.problems + ignored_target.problems
    if ignored_live.obj is live:
        return IgnoreResult(ignored_target.obj, problems)
    gvk = GroupVersionKind.of(target)
    restore = create_three_way_strategic_patch(None, live, ignored_live.obj, gvk)
    restore.pop("status", None)
    if not restore:
        return IgnoreResult(ignored_target.obj, problems)
    return IgnoreResult(apply_strategic_patch(ignored_target.obj, restore, gvk), problems)
