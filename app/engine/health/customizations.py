"""Custom Lua health checks: where they come from and which one applies to a kind.

Two sources, Argo CD's:
- configuration keys `resource.customizations.health.<group>_<kind>` (or
  `resource.customizations.health.<Kind>` for the core group), whose value is a
  health.lua; `*` in the group or kind matches anything;
- a tree `resource_customizations/<group>/<kind>/health.lua` (core kinds sit directly
  under the root: `resource_customizations/<Kind>/health.lua`), each beside its
  `health_test.yaml` and `testdata/`; `_` in a directory name matches anything
  (`_.toolkit.fluxcd.io/_` covers every Flux kind). Sluice ships one such tree, and
  the packaged one is always consulted.

Order: configured exact key, configured wildcard, tree exact directory, tree wildcard
(the more literal characters, the earlier). The first match wins and decides health:
Argo CD never falls back to a built-in check when a Lua check exists.
"""

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable

from app import log
from app.engine.health.lua_sandbox import LuaHealthCheck, compile_check
from app.model.errors import SpecError
from app.model.resource import GroupKind

CONFIG_PREFIX = "resource.customizations.health."
HEALTH_SCRIPT = "health.lua"
TREE_NAME = "resource_customizations"

_GROUP = re.compile(r"[a-z0-9*][-a-z0-9.*]*")
_KIND = re.compile(r"[A-Za-z0-9*]+")

logger = log.get("health.customizations")


@dataclass(frozen=True, slots=True)
class KindPattern:
    """A group and kind, each of which may hold `*` wildcards."""

    group: str
    kind: str
    _regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        regex = "/".join(
            ".*".join(re.escape(part) for part in text.split("*"))
            for text in (self.group, self.kind)
        )
        object.__setattr__(self, "_regex", re.compile(regex))

    @property
    def wildcard(self) -> bool:
        return "*" in self.group or "*" in self.kind

    @property
    def specificity(self) -> int:
        """Literal characters: among wildcards, the most specific pattern is tried first."""
        return len(self.group.replace("*", "")) + len(self.kind.replace("*", ""))

    def matches(self, group_kind: GroupKind) -> bool:
        return self._regex.fullmatch(f"{group_kind.group}/{group_kind.kind}") is not None

    def __str__(self) -> str:
        return f"{self.group}/{self.kind}" if self.group else self.kind


@dataclass(frozen=True, slots=True)
class CustomCheck:
    """A Lua check and the kinds it covers."""

    pattern: KindPattern
    check: LuaHealthCheck


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One `<group>/<kind>/` directory of a resource_customizations tree."""

    pattern: KindPattern
    directory: Traversable
    """Holds health.lua, and (by convention) health_test.yaml and testdata/."""
    origin: str
    """`resource_customizations/<group>/<kind>/health.lua`: how messages name the check."""


def _validate(pattern: KindPattern, where: str) -> KindPattern:
    if pattern.group and not _GROUP.fullmatch(pattern.group):
        raise SpecError(where, f"{pattern.group!r} is not an API group (lowercase DNS name)")
    if not _KIND.fullmatch(pattern.kind):
        raise SpecError(where, f"{pattern.kind!r} is not a kind (letters and digits)")
    return pattern


def tree_pattern(parts: list[str], where: str) -> KindPattern:
    """The kinds a `<group>/<kind>` directory covers (`_` matches anything)."""
    names = [part.replace("_", "*") for part in parts]
    if len(names) == 1:
        return _validate(KindPattern("", names[0]), where)
    if len(names) == 2:
        return _validate(KindPattern(names[0], names[1]), where)
    raise SpecError(
        where, f"expected {TREE_NAME}/<group>/<kind>/{HEALTH_SCRIPT} or <Kind>/{HEALTH_SCRIPT}"
    )


def _walk(directory: Traversable, parts: list[str]) -> Iterable[tuple[list[str], Traversable]]:
    for child in sorted(directory.iterdir(), key=lambda c: c.name):
        if child.is_dir() and child.name != "testdata":
            yield from _walk(child, [*parts, child.name])
        elif child.name == HEALTH_SCRIPT:
            yield parts, directory


def load_tree(root: Traversable) -> list[TreeEntry]:
    """Every health.lua of a resource_customizations tree, in directory order."""
    entries = []
    for parts, directory in _walk(root, []):
        origin = "/".join([TREE_NAME, *parts, HEALTH_SCRIPT])
        entries.append(TreeEntry(tree_pattern(parts, origin), directory, origin))
    return entries


def packaged_tree() -> Traversable:
    """The resource_customizations tree shipped inside this package."""
    return resources.files(__package__).joinpath(TREE_NAME)


def config_pattern(key: str, prefix: str = CONFIG_PREFIX) -> KindPattern:
    """`resource.customizations.health.cert-manager.io_Certificate` → its KindPattern."""
    group_kind = key.removeprefix(prefix)
    parts = group_kind.split("_")
    if not group_kind or len(parts) > 2:
        raise SpecError(
            key,
            f"expected {prefix}<group>_<kind> (or {prefix}<Kind> for the core group)",
        )
    pattern = KindPattern(parts[0], parts[1]) if len(parts) == 2 else KindPattern("", parts[0])
    return _validate(pattern, key)


def configured_check(key: str, script: object) -> CustomCheck:
    """One `resource.customizations.health.<group>_<kind>` entry, compiled.

    Raises SpecError naming the key for a malformed key, an empty or invalid script.
    """
    pattern = config_pattern(key)
    if not isinstance(script, str):
        raise SpecError(key, f"must be a health.lua script, got {type(script).__name__}")
    if not script.strip():
        raise SpecError(key, "is empty; give it a health.lua script or remove the key")
    return CustomCheck(pattern, compile_check(script, key))


def _ordered(checks: Iterable[CustomCheck]) -> list[CustomCheck]:
    """Exact patterns first, then wildcards from the most specific."""
    return sorted(
        checks,
        key=lambda c: (c.pattern.wildcard, -c.pattern.specificity, str(c.pattern)),
    )


class HealthCustomizations:
    """The custom Lua health checks in force, and the lookup from kind to check."""

    def __init__(
        self,
        configured: Iterable[CustomCheck] = (),
        tree: Iterable[CustomCheck] = (),
        *,
        library: Iterable[CustomCheck] = (),
    ) -> None:
        """`configured` (argocd-cm) is tried first, then an operator's `library`
        directory, then `tree` (Sluice's packaged one)."""
        self.checks: tuple[CustomCheck, ...] = (
            *_ordered(configured),
            *_ordered(library),
            *_ordered(tree),
        )
        """Every check, in the order they are tried."""
        self._by_kind: dict[GroupKind, LuaHealthCheck | None] = {}

    @classmethod
    def packaged(cls) -> "HealthCustomizations":
        """Sluice's own tree only: the default when nothing is configured."""
        return _packaged()

    @classmethod
    def from_config(cls, data: Mapping[str, object]) -> "HealthCustomizations":
        """The health.lua scripts of a settings map (argocd-cm style), plus the packaged
        tree. Keys without the `resource.customizations.health.` prefix are not health
        checks and are left to their owners.

        Raises SpecError naming the key for a malformed key, an empty or invalid script.
        """
        configured = [
            configured_check(key, data[key])
            for key in sorted(data)
            if key.startswith(CONFIG_PREFIX)
        ]
        logger.info(
            "health customizations loaded",
            configured=[str(c.pattern) for c in configured],
        )
        return cls(configured, _packaged().checks)

    def lookup(self, group_kind: GroupKind) -> LuaHealthCheck | None:
        """The check that decides health for a kind, or None if no Lua check covers it."""
        try:
            return self._by_kind[group_kind]
        except KeyError:
            found = next((c.check for c in self.checks if c.pattern.matches(group_kind)), None)
            self._by_kind[group_kind] = found
            return found


@functools.cache
def _packaged() -> HealthCustomizations:
    tree = []
    for entry in load_tree(packaged_tree()):
        source = entry.directory.joinpath(HEALTH_SCRIPT).read_text("utf-8")
        tree.append(CustomCheck(entry.pattern, compile_check(source, entry.origin)))
    logger.debug("packaged health checks loaded", checks=[str(c.pattern) for c in tree])
    return HealthCustomizations(tree=tree)


def load_library_checks(root: Traversable) -> list[CustomCheck]:
    """The health.lua scripts of an operator's resource_customizations directory, compiled
    (SpecError naming the file for one that cannot be used)."""
    return [
        CustomCheck(
            entry.pattern,
            compile_check(entry.directory.joinpath(HEALTH_SCRIPT).read_text("utf-8"), entry.origin),
        )
        for entry in load_tree(root)
    ]
