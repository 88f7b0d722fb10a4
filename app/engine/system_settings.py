"""System-wide settings: Argo CD's `argocd-cm` ConfigMap, read as Argo CD reads it.

What it decides: which keys of the ConfigMap's `data` Sluice acts on, what each one
means, and whether the whole map can be used. The keys:

- `application.resourceTrackingMethod`: `annotation` (default), `label` or
  `annotation+label`;
- `resource.customizations.health.<group>_<kind>` (`<Kind>` for the core group; `*`
  globs): a health.lua script deciding that kind's health (SEMANTICS §5);
- `resource.customizations.ignoreDifferences.<group>_<kind>` and
  `resource.customizations.ignoreDifferences.all`: YAML with `jsonPointers`,
  `jqPathExpressions` and `managedFieldsManagers`, applied to every app after its own
  `spec.ignoreDifferences` (SEMANTICS §4);
- `resource.exclusions` / `resource.inclusions`: YAML lists of `{apiGroups, kinds,
  clusters}` (`app.engine.exclusions`);
- `resource.compareoptions`: YAML; `ignoreResourceStatusField` is `all` (every kind's
  /status ignored, Sluice's default), `crd` (only CustomResourceDefinitions') or `off`;
- `controller.repo.error.grace.period.seconds`: seconds a repository error leaves an app's
  previous status in place before it becomes a ComparisonError (SEMANTICS §7; Argo CD's
  controller flag of that name, which Argo CD reads from argocd-cmd-params-cm); unset: the
  process's `SLUICE_REPO_ERROR_GRACE_SECONDS`, else 180.
- `timeout.reconciliation`, `timeout.reconciliation.jitter`, `timeout.hard.reconciliation`:
  Go durations (`180s`, `3m`; a bare number is seconds; `0` turns one off) of the periodic
  `latest` and `force` comparisons (`app.engine.resync`); a process's environment
  variable, when set, wins over them;
- `resource.customizations.actions.<group>_<kind>`: YAML with `discovery.lua`,
  `definitions` and `mergeBuiltinActions`: Lua resource actions (`app.engine.actions`);
- `resource.customizations`: the older single-key YAML map of `<group>/<Kind>` to
  `health.lua`, `actions` and `ignoreDifferences`; the per-key form wins for a kind
  both set.

Every other key belongs to parts of Argo CD Sluice does not have (SSO, UI, repositories)
and is left alone. Keys Sluice understands but does not act on (other
`resource.customizations.<type>` types such as `knownTypeFields`, compare options other
than `ignoreResourceStatusField`) are reported as notices, so nothing is skipped
silently.

A map is used whole or not at all: every key Sluice reads must parse (a script that is
not Lua, a pointer that is not a pointer, an unknown field in a rule, a YAML bomb), else
`SystemSettingsError` lists every bad key with what is wrong. Settings that are only half
read could make a sync undo what an ignore rule protects, or report a wrong health.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.engine.actions import ActionCatalog, LuaActions, configured_actions
from app.engine.actions.lua import CONFIG_PREFIX as ACTIONS_PREFIX
from app.engine.compare import CompareSettings
from app.engine.exclusions import ResourceExclusion
from app.engine.health import HealthCustomizations
from app.engine.health.customizations import CONFIG_PREFIX as HEALTH_PREFIX
from app.engine.health.customizations import CustomCheck, config_pattern, configured_check
from app.engine.health.lua_sandbox import compile_check
from app.engine.manifests.bounded_yaml import YamlDocumentError, iter_yaml_documents
from app.engine.manifests.limits import ManifestLimits
from app.engine.normalize.ignore import check_rule
from app.engine.tracking import TrackingMethod
from app.model import codec
from app.model.app_spec import ResourceIgnoreDifferences
from app.model.duration import parse_duration
from app.model.errors import SpecError

TRACKING_KEY = "application.resourceTrackingMethod"
CUSTOMIZATIONS = "resource.customizations"
IGNORE_PREFIX = f"{CUSTOMIZATIONS}.ignoreDifferences."
EXCLUSIONS_KEY = "resource.exclusions"
INCLUSIONS_KEY = "resource.inclusions"
COMPARE_OPTIONS_KEY = "resource.compareoptions"
REPO_ERROR_GRACE_KEY = "controller.repo.error.grace.period.seconds"
MAX_REPO_ERROR_GRACE_SECONDS = 7 * 24 * 3600.0
"""Longest grace period accepted (a week): a longer one means never reporting the error."""
RESYNC_KEYS = {
    "timeout.reconciliation": "period",
    "timeout.reconciliation.jitter": "jitter",
    "timeout.hard.reconciliation": "hard_period",
}
"""argocd-cm's resync keys and the `app.engine.resync.ResyncTiming` field each sets."""
MAX_RESYNC_SECONDS = 30 * 24 * 3600.0
"""Longest resync period accepted (30 days)."""
NOT_ACTED_ON = ("useOpenLibs", "knownTypeFields", "ignoreResourceUpdates")
"""`resource.customizations.<type>` types Argo CD has and Sluice does not act on."""
MAX_VALUE_BYTES = 256 * 1024
"""Largest value of one key Sluice reads (a ConfigMap holds at most 1 MiB in all)."""
YAML_LIMITS = ManifestLimits(
    max_total_bytes=MAX_VALUE_BYTES, max_documents=1, max_nodes=100_000, max_depth=50
)
_RULE_FIELDS = ("jsonPointers", "jqPathExpressions", "managedFieldsManagers")
_FILTER_FIELDS = ("apiGroups", "kinds", "clusters")
_STATUS_FIELD = {"all": True, "crd": False, "off": False, "false": False}
_CRD_STATUS = ResourceIgnoreDifferences(
    group="apiextensions.k8s.io", kind="CustomResourceDefinition", json_pointers=["/status"]
)


@dataclass(frozen=True)
class CustomizationLibrary:
    """An operator's resource_customizations directory, loaded once at start: its checks
    come after argocd-cm's and before Sluice's packaged ones, its actions likewise."""

    checks: tuple[CustomCheck, ...] = ()
    actions: tuple[LuaActions, ...] = ()


class SystemSettingsError(ValueError):
    """The settings map cannot be used; `problems` names every bad key and what is wrong."""

    def __init__(self, origin: str, problems: Iterable[str]) -> None:
        self.origin = origin
        self.problems = tuple(problems)
        listed = "; ".join(self.problems)
        super().__init__(f"{origin} is refused ({len(self.problems)} problem(s)): {listed}")


@dataclass(frozen=True)
class SystemSettings:
    """What the settings map says, ready for the engine."""

    tracking: TrackingMethod | None = None
    """`application.resourceTrackingMethod`; None when the map does not set it."""
    ignore_differences: tuple[ResourceIgnoreDifferences, ...] = ()
    """System ignoreDifferences rules, the `all` rule first, then by key."""
    exclusions: tuple[ResourceExclusion, ...] = ()
    inclusions: tuple[ResourceExclusion, ...] = ()
    ignore_status: bool = True
    """Ignore /status of every kind (`ignoreResourceStatusField: all`, the default)."""
    health: HealthCustomizations = field(default_factory=HealthCustomizations.packaged)
    """Configured Lua health checks, then Sluice's packaged ones."""
    actions: ActionCatalog = field(default_factory=ActionCatalog)
    """Resource actions: configured Lua, then the library directory's, then built-in."""
    configured_health: tuple[str, ...] = ()
    """The kinds (`group/Kind`) a configured health check covers, for logs."""
    notices: tuple[str, ...] = ()
    """Keys read but not acted on, each with why."""
    repo_error_grace: float | None = None
    """`controller.repo.error.grace.period.seconds`; None when the map does not set it."""
    resync: Mapping[str, float] = field(default_factory=dict)
    """The `timeout.*` keys the map sets, by ResyncTiming field name, in seconds."""

    def compare_settings(self, tracking: TrackingMethod) -> CompareSettings:
        """The CompareSettings these settings make (scopes are the caller's: discovery)."""
        return CompareSettings(
            tracking=tracking,
            ignore_differences=self.ignore_differences,
            ignore_status=self.ignore_status,
            exclusions=self.exclusions,
            inclusions=self.inclusions,
            health=self.health,
        )


def _yaml(key: str, text: str) -> Any:
    try:
        documents = list(iter_yaml_documents(text, YAML_LIMITS))
    except YamlDocumentError as e:
        line = f" (line {e.line})" if e.line else ""
        raise SpecError(key, f"is not valid YAML{line}: {e.problem}") from None
    return documents[0][2] if documents else None


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SpecError(where, "must be a list of strings")
    return tuple(value)


def _unknown_fields(data: Mapping[str, Any], known: tuple[str, ...], where: str) -> None:
    unknown = sorted(str(k) for k in data if k not in known)
    if unknown:
        raise SpecError(
            where, f"unknown field(s) {', '.join(unknown)}; expected {', '.join(known)}"
        )


def _group_kind(key: str, prefix: str) -> tuple[str, str]:
    """`<prefix><group>_<kind>` (or `<Kind>`) -> (group, kind), as Argo CD splits it."""
    parts = key.removeprefix(prefix).split("_")
    if len(parts) == 2 and all(parts):
        return parts[0], parts[1]
    if len(parts) == 1 and parts[0]:
        return "", parts[0]
    raise SpecError(key, f"expected {prefix}<group>_<kind>, {prefix}<Kind> or {prefix}all")


def _ignore_rule(key: str, text: str) -> ResourceIgnoreDifferences:
    group, kind = ("*", "*") if key == f"{IGNORE_PREFIX}all" else _group_kind(key, IGNORE_PREFIX)
    data = _yaml(key, text)
    if data is None:
        raise SpecError(key, "is empty; give it jsonPointers, jqPathExpressions or remove it")
    if not isinstance(data, dict):
        raise SpecError(key, "must be a YAML map of " + ", ".join(_RULE_FIELDS))
    _unknown_fields(data, _RULE_FIELDS, key)
    rule = codec.decode(ResourceIgnoreDifferences, {**data, "group": group, "kind": kind}, key)
    check_rule(rule, key)
    return rule


def _filters(key: str, text: str) -> tuple[ResourceExclusion, ...]:
    data = _yaml(key, text)
    if data is None:
        return ()
    if not isinstance(data, list):
        raise SpecError(key, "must be a YAML list of {apiGroups, kinds, clusters}")
    entries = []
    for i, entry in enumerate(data):
        where = f"{key}[{i}]"
        if not isinstance(entry, dict):
            raise SpecError(where, "must be a map of " + ", ".join(_FILTER_FIELDS))
        _unknown_fields(entry, _FILTER_FIELDS, where)
        groups, kinds, clusters = (_strings(entry.get(f), f"{where}.{f}") for f in _FILTER_FIELDS)
        entries.append(
            ResourceExclusion(
                api_groups=groups or ("*",), kinds=kinds or ("*",), clusters=clusters or ("*",)
            )
        )
    return tuple(entries)


@dataclass
class _Reader:
    """Collects what each key says, and every problem, across the whole map."""

    problems: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    tracking: TrackingMethod | None = None
    rules: dict[str, ResourceIgnoreDifferences] = field(default_factory=dict)
    checks: list[CustomCheck] = field(default_factory=list)
    legacy_checks: list[CustomCheck] = field(default_factory=list)
    actions: list[LuaActions] = field(default_factory=list)
    legacy_actions: list[LuaActions] = field(default_factory=list)
    exclusions: tuple[ResourceExclusion, ...] = ()
    inclusions: tuple[ResourceExclusion, ...] = ()
    ignore_status: bool = True
    repo_error_grace: float | None = None
    resync: dict[str, float] = field(default_factory=dict)

    def read(self, key: str, value: str) -> None:
        if len(value.encode("utf-8")) > MAX_VALUE_BYTES:
            self.problems.append(f"{key}: is over {MAX_VALUE_BYTES // 1024} KiB")
            return
        try:
            self._read(key, value)
        except SpecError as e:
            self.problems.append(str(e))

    def _read(self, key: str, value: str) -> None:
        if key == TRACKING_KEY:
            self.tracking = _tracking(value)
        elif key.startswith(HEALTH_PREFIX):
            self.checks.append(configured_check(key, value))
        elif key.startswith(IGNORE_PREFIX):
            self.rules[key] = _ignore_rule(key, value)
        elif key.startswith(ACTIONS_PREFIX):
            self.actions.append(configured_actions(key, _yaml(key, value)))
        elif key == EXCLUSIONS_KEY:
            self.exclusions = _filters(key, value)
        elif key == INCLUSIONS_KEY:
            self.inclusions = _filters(key, value)
        elif key == COMPARE_OPTIONS_KEY:
            self._compare_options(value)
        elif key == REPO_ERROR_GRACE_KEY:
            self.repo_error_grace = _grace_seconds(value)
        elif key in RESYNC_KEYS:
            self.resync[RESYNC_KEYS[key]] = _resync_seconds(key, value)
        elif key == CUSTOMIZATIONS:
            self._single_key(value)
        elif key.startswith(f"{CUSTOMIZATIONS}.") and key.split(".")[2] in NOT_ACTED_ON:
            self.notices.append(f"{key}: Sluice does not act on {key.split('.')[2]}")

    def _single_key(self, value: str) -> None:
        """The older form: one YAML map of `<group>/<Kind>` to its customizations. The
        per-key form wins for a kind both set (its keys are read after this one)."""
        data = _yaml(CUSTOMIZATIONS, value)
        if data is None:
            return
        if not isinstance(data, dict):
            raise SpecError(
                CUSTOMIZATIONS, "must be a YAML map of <group>/<Kind> to customizations"
            )
        for name in sorted(str(n) for n in data):
            where = f"{CUSTOMIZATIONS}[{name}]"
            entry = data[name]
            if not isinstance(entry, dict):
                self.problems.append(f"{where}: must be a map of health.lua, actions, ...")
                continue
            group, _, kind = name.rpartition("/")
            suffix = f"{group}_{kind}" if group else kind
            for field_name in sorted(str(f) for f in entry):
                text = entry[field_name]
                try:
                    if not isinstance(text, str):
                        raise SpecError(f"{where}.{field_name}", "must be a string")
                    self._single_key_field(where, suffix, field_name, text)
                except SpecError as e:
                    self.problems.append(str(e))

    def _single_key_field(self, where: str, suffix: str, field_name: str, text: str) -> None:
        at = f"{where}.{field_name}"
        if field_name == "health.lua":
            pattern = config_pattern(HEALTH_PREFIX + suffix)
            self.legacy_checks.append(CustomCheck(pattern, compile_check(text, at)))
        elif field_name == "actions":
            self.legacy_actions.append(configured_actions(ACTIONS_PREFIX + suffix, _yaml(at, text)))
        elif field_name == "ignoreDifferences":
            self.rules[IGNORE_PREFIX + suffix] = _ignore_rule(IGNORE_PREFIX + suffix, text)
        else:
            self.notices.append(f"{at}: Sluice does not act on {field_name}")

    def _compare_options(self, value: str) -> None:
        data = _yaml(COMPARE_OPTIONS_KEY, value)
        if data is None:
            return
        if not isinstance(data, dict):
            raise SpecError(COMPARE_OPTIONS_KEY, "must be a YAML map")
        status = str(data.get("ignoreResourceStatusField", "all")).strip().lower()
        if status not in _STATUS_FIELD:
            raise SpecError(
                f"{COMPARE_OPTIONS_KEY}.ignoreResourceStatusField",
                f"{status!r} is not one of all, crd, off",
            )
        self.ignore_status = _STATUS_FIELD[status]
        if status == "crd":
            self.rules[f"{COMPARE_OPTIONS_KEY}.ignoreResourceStatusField"] = _CRD_STATUS
        for name in sorted(str(k) for k in data if k != "ignoreResourceStatusField"):
            self.notices.append(f"{COMPARE_OPTIONS_KEY}.{name}: Sluice does not act on it")


def _tracking(value: str) -> TrackingMethod:
    try:
        return TrackingMethod(value.strip())
    except ValueError:
        known = ", ".join(m.value for m in TrackingMethod)
        raise SpecError(TRACKING_KEY, f"{value.strip()[:40]!r} is not one of {known}") from None


def _grace_seconds(value: str) -> float:
    try:
        seconds = float(value.strip())
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= MAX_REPO_ERROR_GRACE_SECONDS:
        raise SpecError(
            REPO_ERROR_GRACE_KEY,
            f"{value.strip()[:40]!r} is not a number of seconds from 0 to "
            f"{MAX_REPO_ERROR_GRACE_SECONDS:g}",
        )
    return seconds


def _resync_seconds(key: str, value: str) -> float:
    seconds = parse_duration(value, key)
    if not 0 <= seconds <= MAX_RESYNC_SECONDS:
        raise SpecError(
            key, f"{value.strip()[:40]!r} must be from 0 (off) to {MAX_RESYNC_SECONDS:g} seconds"
        )
    return seconds


def default_settings(library: CustomizationLibrary) -> SystemSettings:
    """The settings when no map exists: Sluice's defaults, and the library."""
    return parse_system_settings({}, origin="defaults", library=library)


def parse_system_settings(
    data: Mapping[str, Any],
    *,
    origin: str,
    library: CustomizationLibrary = CustomizationLibrary(),
) -> SystemSettings:
    """The settings a ConfigMap's `data` holds; `origin` names the map in errors.

    Raises SystemSettingsError listing every key that cannot be used.
    """
    reader = _Reader()
    for key in sorted(data):
        value = data[key]
        if not isinstance(value, str):
            reader.problems.append(f"{key}: must be a string, got {type(value).__name__}")
            continue
        reader.read(key, value)
    if reader.problems:
        raise SystemSettingsError(origin, reader.problems)
    all_key = f"{IGNORE_PREFIX}all"
    ordered = sorted(reader.rules, key=lambda k: (k != all_key, k))
    return SystemSettings(
        tracking=reader.tracking,
        ignore_differences=tuple(reader.rules[k] for k in ordered),
        exclusions=reader.exclusions,
        inclusions=reader.inclusions,
        ignore_status=reader.ignore_status,
        health=HealthCustomizations(
            [*reader.checks, *reader.legacy_checks],
            HealthCustomizations.packaged().checks,
            library=library.checks,
        ),
        actions=ActionCatalog([*reader.actions, *reader.legacy_actions], library.actions),
        configured_health=tuple(str(c.pattern) for c in [*reader.checks, *reader.legacy_checks]),
        notices=tuple(reader.notices),
        repo_error_grace=reader.repo_error_grace,
        resync=dict(reader.resync),
    )
