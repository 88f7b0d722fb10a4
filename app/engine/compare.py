"""Compare: an Application's target state against its live state, as one pure function.

`compare(...)` is what the compare worker calls on every refresh. Given the app, its
rendered targets, the live objects from the cluster cache, the project and the system
settings, it decides for every resource whether it is Synced, OutOfSync or Unknown (and
why), which live objects require pruning, the app's sync status and health, and the
warnings a user should see as conditions (SEMANTICS §3 compare options, §4, §5):

- targets are placed (destination namespace for namespaced kinds, none for cluster-scoped
  ones) and marked with the app's tracking metadata by `app.engine.sync.targets`, the
  preparation the sync planner uses: exactly what a sync would apply;
- a target key repeated in the manifests keeps its last occurrence
  (RepeatedResourceWarning); a target of an excluded kind is dropped
  (ExcludedResourceWarning); a live object tracked by another app gets
  SharedResourceWarning;
- a live object of an excluded kind (`resource.exclusions`, or not in
  `resource.inclusions` when some are set) is not the app's: Argo CD never even watches
  it, so it is neither compared nor pruned;
- hooks, Skip targets, ignored hooks and live objects whose tracking id was copied from
  another object get no sync status and do not count;
- Modified, missing or extra -> OutOfSync, else Synced; an extra object annotated
  `argocd.argoproj.io/compare-options: IgnoreExtraneous` is OutOfSync itself but does not
  make the app OutOfSync;
- a kind (or namespace) the project forbids (`app.engine.project.resource_permitted`, the
  check a sync makes too) makes that resource Unknown, with the project's message, and
  so does an ignoreDifferences rule that failed on it;
- a resource whose diff cannot be computed (malformed managedFields, a patch error) is
  Unknown and makes the app Unknown (never OutOfSync: auto-sync must not act on it);
- invalid ignoreDifferences rules, or a render failure (`unknown_comparison`), make every
  resource and the app Unknown with a ComparisonError condition.

Health is assessed through the `assess_health` seam (default `app.engine.health.assess`
with the settings' custom Lua checks) and aggregated by `app.engine.health.aggregate`.
"""

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from app.engine import project as proj
from app.engine.diff import DiffMode, DiffResult, diff_resource, render_diff
from app.engine.diff.resource import server_side
from app.engine.exclusions import ResourceExclusion, is_excluded, managed_kinds
from app.engine.health import (
    AppHealth,
    HealthCustomizations,
    ResourceHealthInput,
    aggregate,
    assess,
)
from app.engine.health.aggregate import ignores_healthcheck
from app.engine.merge import FieldSet, PatchError
from app.engine.normalize.ignore import IgnoreRules, compile_ignore_rules
from app.engine.normalize.pipeline import NormalizeOptions, normalize_one, normalize_pair
from app.engine.redact import redact_text
from app.engine.sync.hooks import is_hook, is_ignored, is_skip
from app.engine.sync.options import (
    OptionScopes,
    csv_values,
    parse_app_options,
    parse_resource_options,
)
from app.engine.sync.targets import split_targets
from app.engine.tracking import (
    TrackingId,
    TrackingMethod,
    is_namespaced,
    owning_app,
    select_managed,
)
from app.model import annotations as ann
from app.model.app_spec import ResourceIgnoreDifferences
from app.model.application import Application
from app.model.errors import SpecError
from app.model.health import HealthStatus, HealthStatusCode
from app.model.project import AppProject
from app.model.resource import KubeObject, ResourceKey, annotations, split_api_version
from app.model.status import (
    CONDITION_COMPARISON_ERROR,
    CONDITION_EXCLUDED_RESOURCE_WARNING,
    CONDITION_REPEATED_RESOURCE_WARNING,
    CONDITION_SHARED_RESOURCE_WARNING,
    ApplicationCondition,
    ResourceHealth,
    ResourceStatus,
)
from app.model.sync import SyncStatusCode

IGNORE_EXTRANEOUS = "IgnoreExtraneous"
SERVER_SIDE_DIFF = "ServerSideDiff=true"
MAX_LAST_APPLIED = 256 * 1024


@dataclass(frozen=True)
class CompareSettings:
    """System-wide settings that shape every comparison (argocd-cm in Argo CD)."""

    tracking: TrackingMethod = TrackingMethod.ANNOTATION
    """`application.resourceTrackingMethod`; default annotation."""
    ignore_differences: tuple[ResourceIgnoreDifferences, ...] = ()
    """`resource.customizations.ignoreDifferences.*`, applied after the app's own rules."""
    ignore_status: bool = True
    """Ignore `/status` of every kind (default, as Argo CD v3)."""
    jq_deadline: float = 1.0
    """Seconds one jqPathExpressions evaluation may take; default 1."""
    exclusions: tuple[ResourceExclusion, ...] = ()
    """`resource.exclusions`: kinds Sluice neither applies nor compares."""
    inclusions: tuple[ResourceExclusion, ...] = ()
    """`resource.inclusions`: when set, the only kinds Sluice applies and compares."""
    health: HealthCustomizations | None = None
    """Custom Lua health checks (`resource.customizations.health.*`); None: the packaged ones."""
    server_side_diff: bool = False
    """Diff every app server-side (else only apps asking with ServerSideDiff/SSA)."""
    scopes: Mapping[tuple[str, str], bool] = field(default_factory=dict)
    """(group, kind) -> namespaced, from cluster discovery; built-in kinds are known."""

    def excluded(self, group: str, kind: str, cluster: str) -> bool:
        """Objects of this kind on this cluster are not managed (Argo CD's IsExcludedResource)."""
        return is_excluded(self.exclusions, self.inclusions, group, kind, cluster)

    def assess(self, obj: KubeObject) -> HealthStatus | None:
        """The health of a live object, with these settings' custom checks."""
        return assess(obj, customizations=self.health)


@dataclass(frozen=True)
class ResourceComparison:
    """One resource of the app: its objects, its normalized forms and its verdict."""

    key: ResourceKey
    version: str
    status: SyncStatusCode | None
    """None for hooks, Skip targets, ignored hooks and copied-tracking objects (no status)."""
    target: KubeObject | None
    """The target as a sync would apply it: placed and tracked."""
    live: KubeObject | None
    normalized_target: KubeObject | None = None
    normalized_live: KubeObject | None = None
    predicted_live: KubeObject | None = None
    modified: bool = False
    requires_pruning: bool = False
    hook: bool = False
    skip: bool = False
    sync_wave: int = 0
    health: HealthStatus | None = None
    diff_mode: DiffMode = DiffMode.THREE_WAY
    message: str = ""
    """Why the status is Unknown, when it is."""

    @cached_property
    def diff(self) -> str:
        """Unified YAML diff of normalized live vs predicted live (Secrets masked)."""
        if not self.modified:
            return ""
        return render_diff(self.key, self.normalized_live, self.predicted_live)

    def to_status(self) -> ResourceStatus:
        """The `status.resources[]` entry (for a resource without status: Unknown)."""
        health = ResourceHealth(self.health.status, self.health.message) if self.health else None
        return ResourceStatus(
            kind=self.key.kind,
            name=self.key.name,
            group=self.key.group,
            version=self.version,
            namespace=self.key.namespace,
            status=self.status or SyncStatusCode.UNKNOWN,
            health=health,
            hook=self.hook,
            requires_pruning=self.requires_pruning,
            sync_wave=self.sync_wave,
        )


@dataclass(frozen=True)
class ComparisonResult:
    """The app's comparison: status, resources, health and conditions."""

    sync_status: SyncStatusCode
    resources: tuple[ResourceComparison, ...]
    health: AppHealth
    conditions: tuple[ApplicationCondition, ...] = ()

    def resource_statuses(self) -> list[ResourceStatus]:
        """`status.resources`: the resources that have a sync status (hooks, Skip targets
        and ignored objects have none and are left out; they stay in `resources`)."""
        return [r.to_status() for r in self.resources if r.status is not None]


def _condition(kind: str, message: str) -> ApplicationCondition:
    return ApplicationCondition(type=kind, message=redact_text(message))


def _sync_wave(obj: KubeObject | None) -> int:
    if obj is None:
        return 0
    text = annotations(obj).get(ann.SYNC_WAVE, "0")
    try:
        return int(str(text).strip())
    except ValueError:
        return 0


def _compare_options(obj: KubeObject | None) -> list[str]:
    if obj is None:
        return []
    return csv_values(str(annotations(obj).get(ann.COMPARE_OPTIONS, "")))


def _last_applied(live: KubeObject) -> KubeObject | None:
    text = annotations(live).get(ann.LAST_APPLIED)
    if not isinstance(text, str) or not text or len(text) > MAX_LAST_APPLIED:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _copied_tracking(live: KubeObject | None, method: TrackingMethod) -> bool:
    """The live object carries a tracking id that names some other object."""
    if live is None or not method.uses_annotation:
        return False
    text = annotations(live).get(ann.TRACKING_ID)
    tracking = TrackingId.parse(text) if isinstance(text, str) else None
    return tracking is not None and not tracking.refers_to(live)


@dataclass
class _Context:
    app: Application
    project: AppProject
    settings: CompareSettings
    rules: IgnoreRules
    options: NormalizeOptions
    app_options: OptionScopes
    server_side_diff: bool
    assess_health: Callable[[KubeObject], HealthStatus | None]
    predictions: Mapping[ResourceKey, KubeObject]
    instance: str
    """The name the app goes by on its objects (app.engine.instance_names)."""
    server: str
    """The destination cluster's server URL, which exclusion cluster globs match."""
    conditions: list[ApplicationCondition] = field(default_factory=list)


def _prepare_targets(targets: Sequence[KubeObject], ctx: _Context) -> dict[ResourceKey, KubeObject]:
    """The targets as a sync applies them (`split_targets`), with a warning for each
    manifest of an excluded kind and each key repeated."""
    settings, namespace = ctx.settings, ctx.app.spec.destination.namespace
    split = split_targets(
        targets,
        app=ctx.instance,
        namespace=namespace,
        tracking=settings.tracking,
        scopes=settings.scopes,
        excluded=lambda group, kind: settings.excluded(group, kind, ctx.server),
    )
    for excluded in split.excluded:
        key = ResourceKey.of(excluded)
        ctx.conditions.append(
            _condition(
                CONDITION_EXCLUDED_RESOURCE_WARNING,
                f"Resource {key.group}/{key.kind} {key.name} is excluded in the settings",
            )
        )
    for key, count in split.repeated.items():
        ctx.conditions.append(
            _condition(
                CONDITION_REPEATED_RESOURCE_WARNING,
                f"Resource {key.group}/{key.kind}/{key.namespace}/{key.name} appeared "
                f"{count} times among application resources.",
            )
        )
    return split.by_key


def _permission(key: ResourceKey, obj: KubeObject, ctx: _Context) -> proj.Permission:
    namespaced = is_namespaced(obj, ctx.settings.scopes)
    return proj.resource_permitted(
        ctx.project, key, namespaced=namespaced, destination=ctx.app.spec.destination
    )


def _server_side_prediction(
    key: ResourceKey, target: KubeObject, live: KubeObject, owned: FieldSet | None, ctx: _Context
) -> KubeObject:
    predicted = ctx.predictions.get(key) or server_side(target, live)
    return normalize_one(predicted, key, ctx.rules, ctx.options, owned).obj


def _compare_one(
    key: ResourceKey, target: KubeObject | None, live: KubeObject | None, ctx: _Context
) -> tuple[ResourceComparison, SyncStatusCode | None]:
    """The resource's comparison, and what it makes the app: OutOfSync, Unknown (its diff
    could not be computed) or nothing."""
    obj = target if target is not None else live
    assert obj is not None, "a resource has a target or a live object"
    hook = (target is not None and is_hook(target)) or (live is not None and is_hook(live))
    skip = target is not None and is_skip(target)
    comparison = ResourceComparison(
        key=key,
        version=split_api_version(str(obj.get("apiVersion", "")))[1],
        status=None,
        target=target,
        live=live,
        hook=hook,
        skip=skip,
        sync_wave=_sync_wave(obj),
        health=ctx.assess_health(live) if live is not None and not hook and not skip else None,
    )
    if hook or skip or is_ignored(obj) or _copied_tracking(live, ctx.settings.tracking):
        return comparison, None
    pair = normalize_pair(target, live, key, ctx.rules, ctx.options)
    mode = DiffMode.THREE_WAY
    messages = list(pair.problems)
    app_effect: SyncStatusCode | None = None
    try:
        predicted: KubeObject | None = None
        orig: KubeObject | None = None
        if target is not None and live is not None:
            scopes = OptionScopes(ctx.app_options.app, parse_resource_options(target))
            if ctx.server_side_diff or scopes.server_side_apply:
                mode = DiffMode.SERVER_SIDE
                predicted = _server_side_prediction(key, target, live, pair.owned, ctx)
            else:
                raw_orig = _last_applied(live)
                if raw_orig is not None:
                    orig = normalize_one(raw_orig, key, ctx.rules, ctx.options, pair.owned).obj
        result = diff_resource(pair.target, pair.live, orig=orig, predicted_live=predicted)
    except PatchError as e:
        messages.append(f"cannot compute the {mode.value} diff: {e}")
        result = DiffResult(False, pair.live, pair.live)
        app_effect = SyncStatusCode.UNKNOWN
    extraneous = target is None and live is not None
    out_of_sync = result.modified or target is None or live is None
    if out_of_sync and not (extraneous and IGNORE_EXTRANEOUS in _compare_options(live)):
        app_effect = app_effect or SyncStatusCode.OUT_OF_SYNC
    status = SyncStatusCode.OUT_OF_SYNC if out_of_sync else SyncStatusCode.SYNCED
    permission = _permission(key, obj, ctx)
    if not permission.allowed:
        messages.insert(0, permission.message)
    if messages:
        status = SyncStatusCode.UNKNOWN
    comparison = replace(
        comparison,
        status=status,
        normalized_target=pair.target,
        normalized_live=result.normalized_live,
        predicted_live=result.predicted_live,
        modified=result.modified,
        requires_pruning=extraneous,
        diff_mode=mode,
        message=redact_text("; ".join(messages)),
    )
    return comparison, app_effect


def _health(resources: Iterable[ResourceComparison], app: Application) -> AppHealth:
    inputs = []
    for r in resources:
        live = r.live
        inputs.append(
            ResourceHealthInput(
                key=r.key,
                health=r.health,
                live_exists=live is not None,
                hook=r.hook,
                skip=r.skip,
                ignored=r.status is None and not r.hook and not r.skip,
                ignore_healthcheck=live is not None and ignores_healthcheck(live),
                self_reference=r.key.group == "argoproj.io"
                and r.key.kind == "Application"
                and r.key.name == app.name,
            )
        )
    return aggregate(inputs)


def compare(
    app: Application,
    targets: Sequence[KubeObject],
    live: Iterable[KubeObject],
    project: AppProject,
    settings: CompareSettings,
    *,
    assess_health: Callable[[KubeObject], HealthStatus | None] | None = None,
    server_side_predictions: Mapping[ResourceKey, KubeObject] | None = None,
    instance: str = "",
    server: str = "",
) -> ComparisonResult:
    """Compare `app`'s targets with its live objects (see the module docstring).

    `live` may be the app's managed set or any superset (the cluster cache); the managed
    set is selected here. `server_side_predictions` holds server dry-run apply results by
    key, for apps diffed server-side. `instance` is the name the app goes by on its objects
    (`<namespace>_<name>` outside the control-plane namespace); empty means `app.name`.
    `server` is the destination cluster's server URL, which the cluster globs of
    `resource.exclusions`/`inclusions` match: the caller resolves `destination.name` to it
    (empty means `spec.destination.server`). `assess_health` defaults to `settings.assess`.
    """
    server = server or app.spec.destination.server
    live_list = managed_kinds(live, settings.exclusions, settings.inclusions, server)
    instance = instance or app.name
    try:
        rules = compile_ignore_rules(app.spec.ignore_differences, settings.ignore_differences)
    except SpecError as e:
        return unknown_comparison(
            app,
            live_list,
            f"invalid ignoreDifferences: {e}",
            settings,
            instance=instance,
            server=server,
        )
    app_options = OptionScopes(parse_app_options(app.spec.sync_options))
    ctx = _Context(
        app=app,
        project=project,
        settings=settings,
        rules=rules,
        options=NormalizeOptions(settings.tracking, settings.ignore_status, settings.jq_deadline),
        app_options=app_options,
        server_side_diff=settings.server_side_diff
        or SERVER_SIDE_DIFF in csv_values(app.metadata.annotations.get(ann.COMPARE_OPTIONS, "")),
        assess_health=assess_health or settings.assess,
        predictions=server_side_predictions or {},
        instance=instance,
        server=server,
    )
    prepared = _prepare_targets(targets, ctx)
    managed = select_managed(live_list, prepared, app=instance, method=settings.tracking)
    resources: list[ResourceComparison] = []
    effects: set[SyncStatusCode] = set()
    for key in [*prepared, *sorted(k for k in managed if k not in prepared)]:
        live_obj = managed.get(key)
        owner = owning_app(live_obj, settings.tracking) if live_obj is not None else None
        if key in prepared and owner is not None and owner != instance:
            ctx.conditions.append(
                _condition(
                    CONDITION_SHARED_RESOURCE_WARNING,
                    f"{key.kind}/{key.name} is part of applications {instance} and {owner}",
                )
            )
        comparison, effect = _compare_one(key, prepared.get(key), live_obj, ctx)
        resources.append(comparison)
        if effect is not None:
            effects.add(effect)
        if comparison.message:
            ctx.conditions.append(
                _condition(CONDITION_COMPARISON_ERROR, f"{key}: {comparison.message}")
            )
    sync_status = next(
        (code for code in (SyncStatusCode.UNKNOWN, SyncStatusCode.OUT_OF_SYNC) if code in effects),
        SyncStatusCode.SYNCED,
    )
    health = _health(resources, app)
    return ComparisonResult(sync_status, tuple(resources), health, tuple(ctx.conditions))


def unknown_comparison(
    app: Application,
    live: Iterable[KubeObject],
    message: str,
    settings: CompareSettings,
    *,
    instance: str = "",
    server: str = "",
) -> ComparisonResult:
    """Every managed resource and the app Unknown, e.g. when rendering failed.

    `server` is as in `compare`."""
    kept = managed_kinds(
        live, settings.exclusions, settings.inclusions, server or app.spec.destination.server
    )
    managed = select_managed(kept, (), app=instance or app.name, method=settings.tracking)
    resources = tuple(
        ResourceComparison(
            key=key,
            version=split_api_version(str(obj.get("apiVersion", "")))[1],
            status=SyncStatusCode.UNKNOWN,
            target=None,
            live=obj,
            sync_wave=_sync_wave(obj),
            message=redact_text(message),
        )
        for key, obj in sorted(managed.items())
    )
    return ComparisonResult(
        SyncStatusCode.UNKNOWN,
        resources,
        AppHealth(HealthStatusCode.UNKNOWN, redact_text(message)),
        (_condition(CONDITION_COMPARISON_ERROR, message),),
    )
