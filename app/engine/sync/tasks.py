"""Planning: the ordered task list of one sync operation, decided once when it starts.

Inputs are what the worker already has: the Application, the operation, the resolved
revision, the rendered targets (hooks included, placed and tracked as the compare engine
prepares them), the app's managed live objects, what the compare engine said about each
resource (Modified or not), which APIs the cluster serves, the project's verdict on each
object, and the system-wide ignoreDifferences rules.

With `RespectIgnoreDifferences=true` (the operation's options, else the spec's), every
non-hook target whose object is live carries the live values of the fields its
ignoreDifferences rules (the app's, then the system's) leave out of the comparison, so
the sync does not undo what the comparison ignores (an HPA's replicas, an injected
sidecar); status is never copied (`app.engine.normalize.ignore.respect_ignore_differences`). A rule
that fails on an object makes that task invalid, saying which rule and why: applying the
target as rendered would overwrite the very fields the user asked to keep.

Each non-hook target gets one Sync task; a hook one task per declared phase; a live object
without a target one prune task. Skip objects, ignored hooks and live-only hooks get none.
Hooks are left out of selective syncs and of the Apply strategy. Every option, hook
annotation or Helm hook that has no effect is reported in `SyncPlan.warnings`.
"""

import copy
import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from app.engine.normalize.ignore import (
    IgnoreRules,
    compile_ignore_rules,
    respect_ignore_differences,
)
from app.engine.project import resource_permitted
from app.engine.sync.hooks import (
    delete_policies,
    hook_problems,
    is_hook,
    is_ignored,
    is_skip,
    sync_phases,
)
from app.engine.sync.naming import hook_name
from app.engine.sync.options import (
    OptionScopes,
    SyncOptions,
    parse_app_options,
    parse_resource_options,
)
from app.engine.sync.ordering import CRD_GROUP, CRD_KIND, order_tasks, wave_of
from app.engine.sync.task import ApplyMode, SyncTask
from app.engine.tracking import is_namespaced
from app.model.annotations import HOOK_FINALIZER, SYNC_OPTIONS
from app.model.app_spec import (
    ApplicationDestination,
    ApplicationSource,
    ManagedNamespaceMetadata,
    ResourceIgnoreDifferences,
)
from app.model.application import Application
from app.model.errors import SpecError
from app.model.operation import Operation, SyncOperation, SyncOperationResource
from app.model.project import AppProject
from app.model.resource import GroupKind, KubeObject, ResourceKey, metadata
from app.model.status import CONDITION_SHARED_RESOURCE_WARNING
from app.model.sync import SyncPhase, SyncStrategy


class ResourceScope(enum.Enum):
    """Whether a kind's objects live in a namespace, as the cluster's discovery says."""

    NAMESPACED = "Namespaced"
    CLUSTER = "Cluster"


ApiLookup = Mapping[GroupKind, ResourceScope] | Callable[[GroupKind], ResourceScope | None]
"""Which APIs the cluster serves, and their scope; None (or absent) for an unknown API."""
ModifiedLookup = Mapping[ResourceKey, bool] | Callable[[ResourceKey], bool | None]
"""The compare engine's verdict per resource: True if Modified, None if not compared."""
ProjectCheck = Callable[[KubeObject, ResourceScope | None], str]
"""The project's verdict on one object: "" if permitted, else the message to show."""


def _allow_all(_obj: KubeObject, _scope: ResourceScope | None) -> str:
    return ""


def project_check(project: AppProject, destination: ApplicationDestination) -> ProjectCheck:
    """The project's verdict on each object a sync touches, for an app deploying to
    `destination`: the check compare makes (`app.engine.project.resource_permitted`), with
    the object's scope from discovery (the built-in list for an API the cluster lacks)."""

    def check(obj: KubeObject, scope: ResourceScope | None) -> str:
        namespaced = scope is ResourceScope.NAMESPACED if scope else is_namespaced(obj, {})
        verdict = resource_permitted(
            project, ResourceKey.of(obj), namespaced=namespaced, destination=destination
        )
        return verdict.message

    return check


@dataclass(frozen=True)
class PlanInput:
    """Everything planning reads. The worker builds it from status, cache and discovery."""

    app: Application
    operation: Operation
    """The operation to run; its `sync` says what (an operation without one syncs nothing)."""
    revision: str
    """The resolved commit the targets were rendered from (the first source's)."""
    started_at: datetime
    """The operation's start time; names `generateName` hooks, so keep it across retries."""
    targets: Sequence[KubeObject]
    live: Mapping[ResourceKey, KubeObject]
    """The managed live set (tracked objects without owners, plus live twins of targets)."""
    api: ApiLookup
    modified: ModifiedLookup = field(default_factory=dict)
    namespace_live: KubeObject | None = None
    """The live destination Namespace, read only when CreateNamespace=true."""
    project: ProjectCheck = _allow_all
    revisions: Sequence[str] = ()
    """The resolved commit of every source, in source order (multi-source apps)."""
    ignore_differences: Sequence[ResourceIgnoreDifferences] = ()
    """System-wide ignoreDifferences rules (argocd-cm), kept by RespectIgnoreDifferences."""
    jq_deadline: float = 1.0
    """Seconds one jqPathExpressions evaluation may take while keeping ignored fields."""


@dataclass(frozen=True)
class SyncPlan:
    """The planned operation: tasks in execution order and what the user should know."""

    app: str
    operation: Operation
    revision: str
    started_at: datetime
    tasks: tuple[SyncTask, ...]
    options: SyncOptions
    """The app-level options in force (the operation's, else the spec's)."""
    revisions: tuple[str, ...] = ()
    """Every source's commit, in source order (multi-source apps)."""
    source: ApplicationSource | None = None
    sources: tuple[ApplicationSource, ...] = ()
    """What syncResult records as synced: the rollback's source(s), else the spec's."""
    managed_namespace_metadata: ManagedNamespaceMetadata | None = None
    warnings: tuple[str, ...] = ()
    refusal: str = ""
    """Non-empty when the operation must fail before any step (FailOnSharedResource)."""

    @property
    def sync(self) -> SyncOperation:
        return self.operation.sync or SyncOperation()


def _lookup_api(api: ApiLookup, gk: GroupKind) -> ResourceScope | None:
    return api.get(gk) if isinstance(api, Mapping) else api(gk)


def _lookup_modified(modified: ModifiedLookup, key: ResourceKey) -> bool | None:
    return modified.get(key) if isinstance(modified, Mapping) else modified(key)


def _selected(key: ResourceKey, resources: Sequence[SyncOperationResource]) -> bool:
    return not resources or any(
        r.group == key.group
        and r.kind == key.kind
        and r.name == key.name
        and (not r.namespace or r.namespace == key.namespace)
        for r in resources
    )


def _matches(resource: SyncOperationResource, key: ResourceKey) -> bool:
    return _selected(key, [resource])


def _unmatched_refusal(resources: Sequence[SyncOperationResource], known: set[ResourceKey]) -> str:
    """Why a selective sync cannot run: the resources it names that are none of the app's
    (neither in its manifests nor live), by name; empty when every one matched."""
    missing = [r for r in resources if not any(_matches(r, key) for key in known)]
    if not missing:
        return ""
    names = ", ".join(
        f"{r.group}:{r.kind}:{r.namespace + '/' if r.namespace else ''}{r.name}" for r in missing
    )
    return (
        f"the selected resources match none of the application's resources: {names}; "
        "select resources the application manages (sluice app resources lists them)"
    )


def _crd_kinds(targets: Sequence[KubeObject]) -> set[GroupKind]:
    kinds: set[GroupKind] = set()
    for obj in targets:
        key = ResourceKey.of(obj)
        spec = obj.get("spec") if (key.group, key.kind) == (CRD_GROUP, CRD_KIND) else None
        if isinstance(spec, dict) and isinstance(spec.get("names"), dict):
            group, kind = spec.get("group"), spec["names"].get("kind")
            if isinstance(group, str) and isinstance(kind, str):
                kinds.add(GroupKind(group, kind))
    return kinds


def _shared_resource_refusal(app: Application, options: SyncOptions) -> str:
    if not options.fail_on_shared_resource:
        return ""
    for condition in app.status.conditions:
        if condition.type == CONDITION_SHARED_RESOURCE_WARNING:
            return f"Shared resource found: {condition.message}"
    return ""


class _Planner:
    """Builds the unordered task list; `plan_sync` orders it."""

    def __init__(self, given: PlanInput) -> None:
        self.given = given
        op = given.operation.sync or SyncOperation()
        if op.manifests:
            raise SpecError(
                "operation.sync.manifests",
                "a sync of local manifests (argocd app sync --local) is not supported: "
                "Sluice deploys what git holds; commit the manifests and sync that revision",
                source=given.app.name,
            )
        self.sync = op
        spec = given.app.spec
        self.options = parse_app_options(op.sync_options or spec.sync_options)
        self.warnings: list[str] = [f"{given.app.name}: {p}" for p in self.options.problems]
        self.namespace = spec.destination.namespace
        self.skip_hooks = op.strategy is SyncStrategy.APPLY or op.is_selective
        self.force = op.sync_strategy.force if op.sync_strategy else False
        self.crd_kinds = _crd_kinds(given.targets)
        self.tasks: list[SyncTask] = []
        self.prune_last: set[int] = set()
        self.claimed: set[ResourceKey] = set()
        self.known: set[ResourceKey] = set()
        """The key of every target, selected or not (a selective sync names some of them)."""
        self.generated: dict[tuple[str, str], int] = {}
        """How many `generateName` hooks got each name so far, by kind."""
        self.respected: IgnoreRules | None = None
        if self.options.respect_ignore_differences:
            self.respected = compile_ignore_rules(spec.ignore_differences, given.ignore_differences)

    def where(self, obj: KubeObject) -> str:
        return f"{self.given.app.name}: {ResourceKey.of(obj)}"

    def add(self, task: SyncTask) -> None:
        self.tasks.append(replace(task, id=len(self.tasks)))

    def live_of(self, key: ResourceKey) -> KubeObject | None:
        live = self.given.live
        found = live.get(key)
        if found is None and key.namespace:
            found = live.get(replace(key, namespace=""))
            if found is not None:
                self.claimed.add(replace(key, namespace=""))
        self.claimed.add(key)
        return found

    def validity(self, obj: KubeObject, scope: ResourceScope | None, scopes: OptionScopes) -> str:
        key = ResourceKey.of(obj)
        if scope is None:
            if scopes.skip_dry_run_on_missing_resource or key.group_kind in self.crd_kinds:
                return self.given.project(obj, scope)
            return (
                f"the cluster does not serve {obj.get('apiVersion', '')} {key.kind}: install its "
                "CustomResourceDefinition, include the CRD in this app, or add the sync option "
                "SkipDryRunOnMissingResource=true"
            )
        return self.given.project(obj, scope)

    def generated_name(self, obj: KubeObject, generate_name: str, phase: SyncPhase) -> str:
        """A `generateName` hook's name for this operation and phase; a second hook of the
        same kind with the same generateName in the phase gets `-2` after it, and so on in
        manifest order (the same on every re-plan), so neither replaces the other."""
        name = hook_name(generate_name, self.given.revision, phase, self.given.started_at)
        seen = (str(obj.get("kind", "")), name)
        count = self.generated.get(seen, 0) + 1
        self.generated[seen] = count
        return name if count == 1 else f"{name}-{count}"

    def prepare(self, obj: KubeObject, phase: SyncPhase, hook: bool) -> KubeObject:
        """The object to send: named, namespaced, and (for hooks) with the hook finalizer."""
        target = copy.deepcopy(obj)
        meta = target.get("metadata")
        if not isinstance(meta, dict):
            meta = target["metadata"] = {}
        if not meta.get("name"):
            if not hook or not meta.get("generateName"):
                raise SpecError(
                    "metadata.name",
                    "is required (metadata.generateName is allowed for hooks only)",
                    source=self.where(obj),
                )
            meta["name"] = self.generated_name(obj, str(meta["generateName"]), phase)
        scope = _lookup_api(self.given.api, ResourceKey.of(target).group_kind)
        if scope is ResourceScope.CLUSTER:
            meta.pop("namespace", None)
        elif not meta.get("namespace") and self.namespace:
            meta["namespace"] = self.namespace
        if hook:
            finalizers = meta.get("finalizers")
            finalizers = list(finalizers) if isinstance(finalizers, list) else []
            if HOOK_FINALIZER not in finalizers:
                finalizers.append(HOOK_FINALIZER)
            meta["finalizers"] = finalizers
        return target

    def add_target(self, obj: KubeObject) -> None:
        where = self.where(obj)
        self.warnings += hook_problems(obj, where)
        if is_ignored(obj):
            return
        hook = is_hook(obj)
        if is_skip(obj) or (hook and self.skip_hooks):
            key = ResourceKey.of(self.prepare(obj, SyncPhase.SYNC, hook=True))
            self.claimed.add(key)
            self.known.add(key)
            return
        target_options = parse_resource_options(obj, where)
        self.warnings += target_options.problems
        for phase in sync_phases(obj):
            target = self.prepare(obj, phase, hook)
            key = ResourceKey.of(target)
            self.known.add(key)
            if not _selected(key, self.sync.resources):
                continue
            live = self.live_of(key)
            scopes = OptionScopes(self.options, target_options, parse_resource_options(live))
            scope = _lookup_api(self.given.api, key.group_kind)
            target, kept = self.keep_ignored(target, live, key, hook)
            self.add(
                SyncTask(
                    id=0,
                    key=key,
                    api_version=str(target.get("apiVersion", "")),
                    sync_phase=phase,
                    wave=wave_of(target),
                    target=target,
                    hook=hook,
                    delete_policies=delete_policies(obj) if hook else (),
                    mode=_mode(scopes),
                    force=self.force or scopes.force,
                    validate=scopes.validate,
                    migrate=scopes.client_side_apply_migration,
                    skip_dry_run=scope is None,
                    live_uid=str(metadata(live).get("uid") or "") if live else "",
                    skip_reason=self.skip_reason(key, hook, live),
                    invalid=self.validity(target, scope, scopes) or kept,
                )
            )

    def keep_ignored(
        self, target: KubeObject, live: KubeObject | None, key: ResourceKey, hook: bool
    ) -> tuple[KubeObject, str]:
        """RespectIgnoreDifferences: the target with the live values of its ignored fields,
        and why they could not all be kept ("" when they were)."""
        if self.respected is None or live is None or hook:
            return target, ""
        kept = respect_ignore_differences(target, live, key, self.respected, self.given.jq_deadline)
        if not kept.problems:
            return kept.obj, ""
        return target, (
            "RespectIgnoreDifferences=true cannot keep the live values of the ignored fields "
            f"({'; '.join(dict.fromkeys(kept.problems))}); fix the rule or turn the option off"
        )

    def skip_reason(self, key: ResourceKey, hook: bool, live: KubeObject | None) -> str:
        if not self.options.apply_out_of_sync_only or hook or live is None:
            return ""
        if _lookup_modified(self.given.modified, key) is False:
            return "in sync, not applied (ApplyOutOfSyncOnly=true)"
        return ""

    def add_prunes(self) -> None:
        for key, live in self.given.live.items():
            if key in self.claimed or is_hook(live) or is_skip(live):
                continue
            if not _selected(key, self.sync.resources):
                continue
            scopes = OptionScopes(self.options, live=parse_resource_options(live))
            scope = _lookup_api(self.given.api, key.group_kind)
            self.add(
                SyncTask(
                    id=0,
                    key=key,
                    api_version=str(live.get("apiVersion", "")),
                    sync_phase=SyncPhase.SYNC,
                    wave=wave_of(live),
                    prune_mode=scopes.prune,
                    live_uid=str(metadata(live).get("uid") or ""),
                    invalid=self.given.project(live, scope),
                )
            )
            if scopes.prune_last:
                self.prune_last.add(self.tasks[-1].id)

    def add_namespace(self) -> None:
        if not self.options.create_namespace or not self.namespace:
            return
        key = ResourceKey("", "Namespace", "", self.namespace)
        self.claimed.add(key)
        if any(ResourceKey.of(obj) == key for obj in self.given.targets):
            return
        managed = self.given.app.spec.sync_policy
        metadata_spec = managed.managed_namespace_metadata if managed else None
        live = self.given.namespace_live
        if live is not None and metadata_spec is None:
            return
        meta: dict[str, object] = {"name": self.namespace}
        if metadata_spec is not None:
            meta["labels"] = dict(metadata_spec.labels)
            meta["annotations"] = {
                **metadata_spec.annotations,
                SYNC_OPTIONS: "ServerSideApply=true",
            }
        self.add(
            SyncTask(
                id=0,
                key=key,
                api_version="v1",
                sync_phase=SyncPhase.PRE_SYNC,
                wave=0,
                target={"apiVersion": "v1", "kind": "Namespace", "metadata": meta},
                mode=ApplyMode.SERVER_SIDE if metadata_spec is not None else ApplyMode.APPLY,
                creates_namespace=live is None,
            )
        )


def _mode(scopes: OptionScopes) -> ApplyMode:
    if scopes.replace:
        return ApplyMode.REPLACE
    if scopes.server_side_apply:
        return ApplyMode.SERVER_SIDE
    return ApplyMode.APPLY


def plan_sync(given: PlanInput) -> SyncPlan:
    """Plan the operation. Raises SpecError (naming app and object) for an unnamed target,
    and for an operation that carries local manifests instead of a revision to sync."""
    planner = _Planner(given)
    for obj in given.targets:
        planner.add_target(obj)
    planner.add_namespace()
    planner.add_prunes()
    tasks = order_tasks(planner.tasks, planner.prune_last)
    sync = planner.sync
    spec = given.app.spec
    rollback = sync.source is not None or bool(sync.sources)
    policy = spec.sync_policy
    return SyncPlan(
        app=given.app.name,
        operation=given.operation,
        revision=given.revision,
        revisions=tuple(given.revisions),
        started_at=given.started_at,
        tasks=tuple(tasks),
        options=planner.options,
        source=sync.source if rollback else spec.source,
        sources=tuple(sync.sources if rollback else spec.sources),
        managed_namespace_metadata=policy.managed_namespace_metadata if policy else None,
        warnings=tuple(dict.fromkeys(planner.warnings)),
        refusal=_unmatched_refusal(sync.resources, planner.known | set(given.live))
        or _shared_resource_refusal(given.app, planner.options),
    )
