"""Performing the sync engine's actions against a cluster: one result per action.

A step's batches run in order, the actions of one batch concurrently. Each action is
made idempotent the way `app.engine.sync.actions` asks, so a step repeated after a crash
does no harm:

- Every write says what the server does with fields the kind lacks: `Strict` (refused, as
  kubectl's default `--validate=true` and Argo CD send it), or `Ignore` (dropped) for a
  task with `Validate=false`.
- DryRun: the write the task will make, sent with `dryRun=All` (the server validates and
  stores nothing). An object whose namespace does not exist yet passes: the namespace is
  created by this sync or the real apply fails, saying to create it. A hook its
  BeforeHookCreation policy deletes before creating it is validated as that creation (its
  content under `generateName`), not as an update of the live hook: a Job whose template
  changed would fail with "field is immutable" though the sync will never update it.
- Apply: client-side apply keeping the last-applied annotation (kubectl's apply), or
  server-side apply as `sluice` forcing conflicts (ServerSideApply=true), or replace
  (Replace=true). An object that was not live when the sync was planned is created with
  one request instead of a read and a create. AlreadyExists means another replica created
  it a moment ago (names are deterministic, so it is ours): the write is sent again as an
  update. With Force=true an apply that the server refuses deletes the object and
  creates it anew.
- CreateNamespace: create (AlreadyExists is success), or server-side apply with the
  managed namespace metadata.
- Prune: delete with the sync's propagation and the planned uid as precondition (an object
  replaced since planning is someone else's and is left alone).
- DeleteHook, RemoveHookFinalizer: a missing object counts as done; the finalizer is
  removed with the object's resourceVersion as guard, re-read on a conflict.

What an apply returns is kept (`Performed.applied`) so the worker can put it in the live
cache. Every call has a deadline; every failure becomes the result's message (the cluster
client's error text: the call, the server's reason, what to do), never an exception.
"""

import asyncio
import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app import log
from app.cluster import (
    FIELD_MANAGER,
    ApplyMode,
    Cluster,
    ClusterError,
    Conflict,
    FieldValidation,
    Invalid,
    NotFound,
    PatchType,
    Preconditions,
    last_applied,
)
from app.engine.sync import (
    Action,
    ActionResult,
    Apply,
    CreateNamespace,
    DeleteHook,
    DryRun,
    Prune,
    RemoveHookFinalizer,
)
from app.engine.sync import ApplyMode as TaskMode
from app.engine.sync.csa_migration import migrated_managed_fields
from app.model.resource import KubeObject, ResourceKey, metadata
from app.model.sync import Propagation
from app.model.timestamps import format_time

logger = log.get("executor")

_MISSING_NAMESPACE = re.compile(r'namespaces "[^"]+" not found')
FINALIZER_ATTEMPTS = 5
NAME_PREFIX_CHARS = 57
"""Characters of a hook's name kept in the `generateName` of its dry run: with the `-` and
the five the server appends, 63, the longest name every kind (a Job's too) accepts."""
"""Conflicting writers tolerated while removing a hook finalizer before giving up."""


@dataclass(frozen=True, slots=True)
class ExecutorSettings:
    """Deadlines of the calls a step makes."""

    call_timeout: float = 30.0
    """Seconds one cluster call (apply, delete, get) may take; default 30."""
    recreate_timeout: float = 60.0
    """Seconds a Force=true delete-and-create may wait for the old object to go; default 60."""


@dataclass(frozen=True, slots=True)
class Performed:
    """What a step's actions did."""

    results: list[ActionResult]
    applied: list[KubeObject] = field(default_factory=list)
    """Objects as the server stored them after an apply (for the live cache)."""


def _as_new(obj: KubeObject) -> KubeObject:
    """The object as a creation the server can validate beside its live namesake: the
    same content under `generateName` (a dry run stores nothing, so no name is taken)."""
    meta = dict(obj.get("metadata") or {})
    meta["generateName"] = f"{str(meta.pop('name', ''))[:NAME_PREFIX_CHARS]}-"
    return {**obj, "metadata": meta}


def _label(key: ResourceKey) -> str:
    """`deployment.apps/web`, kubectl's way of naming what it applied."""
    kind = key.kind.lower()
    return f"{kind}.{key.group}/{key.name}" if key.group else f"{kind}/{key.name}"


def _validation(validate: bool) -> FieldValidation:
    """`Validate=false` drops unknown fields; otherwise they refuse the write."""
    return FieldValidation.STRICT if validate else FieldValidation.IGNORE


def _already_exists(error: ClusterError) -> bool:
    return isinstance(error, Conflict) and error.reason == "AlreadyExists"


class Executor:
    """Runs actions on one cluster. `existed(task_id)` says whether a task's object was
    live when the operation was planned (for the "created"/"configured" wording)."""

    def __init__(
        self,
        cluster: Cluster,
        existed: Callable[[int], bool],
        settings: ExecutorSettings | None = None,
    ) -> None:
        self._cluster = cluster
        self._existed = existed
        self._settings = settings or ExecutorSettings()
        self._applied: list[KubeObject] = []
        self._timeout = self._settings.call_timeout

    async def run(self, batches: Sequence[Sequence[Action]]) -> Performed:
        """Every action's result, batch after batch (a batch's actions concurrently)."""
        results: list[ActionResult] = []
        for batch in batches:
            results += await asyncio.gather(*(self._one(action) for action in batch))
        return Performed(results, self._applied)

    async def _one(self, action: Action) -> ActionResult:
        try:
            message = await self._dispatch(action)
        except ClusterError as e:
            logger.info(
                "action.failed",
                action=type(action).__name__,
                object=str(action.key),
                error=str(e),
            )
            return ActionResult(action.id, False, str(e))
        return ActionResult(action.id, True, message)

    async def _dispatch(self, action: Action) -> str:
        match action:
            case DryRun():
                return await self._dry_run(action)
            case Apply():
                return await self._apply(action)
            case CreateNamespace():
                return await self._create_namespace(action)
            case Prune():
                return await self._prune(action)
            case DeleteHook():
                await self._delete(action.key, action.api_version, action.propagation)
                return f"{_label(action.key)} deleted"
            case RemoveHookFinalizer():
                return await self._remove_finalizer(action)

    # -- writes -------------------------------------------------------------------------

    async def _write(
        self,
        obj: KubeObject,
        mode: TaskMode,
        field_manager: str,
        *,
        dry_run: bool,
        validate: bool = True,
        existed: bool = True,
        migrate: bool = False,
    ) -> KubeObject:
        """Send the object as `mode` says. One that did not exist when the sync was planned
        is created with one request (client-side apply would read it first to find it
        missing); if it exists after all, the full write follows. `migrate`
        (ClientSideApplyMigration) takes over the fields Argo CD's managers own first."""
        limit = self._timeout
        checks = _validation(validate)
        if not existed and mode is not TaskMode.SERVER_SIDE:
            body = last_applied.annotate(obj) if mode is TaskMode.APPLY else obj
            try:
                return await self._cluster.create(
                    body, dry_run=dry_run, field_validation=checks, time_limit=limit
                )
            except Conflict as e:
                if not _already_exists(e):
                    raise
        if mode is TaskMode.REPLACE:
            return await self._cluster.replace(
                obj, dry_run=dry_run, field_validation=checks, time_limit=limit
            )
        if mode is TaskMode.SERVER_SIDE:
            if migrate and existed and not dry_run:
                await self._take_over(obj, field_manager)
            return await self._cluster.apply(
                obj,
                mode=ApplyMode.SERVER_SIDE,
                force=True,
                dry_run=dry_run,
                field_manager=field_manager,
                field_validation=checks,
                time_limit=limit,
            )
        try:
            return await self._cluster.apply(
                obj,
                mode=ApplyMode.CLIENT_SIDE,
                dry_run=dry_run,
                field_validation=checks,
                time_limit=limit,
                migrate=migrate,
            )
        except Conflict as e:
            if not _already_exists(e):
                raise
        # Created by someone else between the read and the create: it is ours (hook
        # names are deterministic), so apply again, now as an update.
        return await self._cluster.apply(
            obj,
            mode=ApplyMode.CLIENT_SIDE,
            dry_run=dry_run,
            field_validation=checks,
            time_limit=limit,
        )

    async def _take_over(self, obj: KubeObject, field_manager: str) -> None:
        """Fold the managedFields of Argo CD's and kubectl's managers into Sluice's Apply
        entry before a server-side apply (ClientSideApplyMigration), guarded by the
        object's resourceVersion; an object changed or gone meanwhile is left to the
        apply (its next sync migrates it)."""
        key = ResourceKey.of(obj)
        api_version = str(obj.get("apiVersion") or "")
        limit = self._timeout
        try:
            live = await self._cluster.get(
                api_version, key.kind, key.name, key.namespace, time_limit=limit
            )
        except NotFound:
            return
        now = format_time(dt.datetime.now(dt.UTC))
        managed = migrated_managed_fields(live, manager=field_manager or FIELD_MANAGER, now=now)
        if managed is None:
            return
        version = str(metadata(live).get("resourceVersion") or "")
        patch: list[dict[str, Any]] = [
            {"op": "test", "path": "/metadata/resourceVersion", "value": version},
            {"op": "replace", "path": "/metadata/managedFields", "value": managed},
        ]
        try:
            await self._cluster.patch(
                api_version,
                key.kind,
                key.name,
                patch,
                namespace=key.namespace,
                patch_type=PatchType.JSON,
                time_limit=limit,
            )
        except (Conflict, Invalid, NotFound) as e:
            logger.info("apply.migration_skipped", object=str(key), reason=str(e))
            return
        logger.info("apply.migrated", object=str(key), manager=field_manager or FIELD_MANAGER)

    def _verb(self, action: Apply | DryRun) -> str:
        return "configured" if self._existed(action.task_id) else "created"

    async def _dry_run(self, action: DryRun) -> str:
        mode = TaskMode.REPLACE if action.replace else TaskMode.APPLY
        obj, existed = action.object, self._existed(action.task_id)
        if action.as_new and existed:
            obj, existed = _as_new(obj), False
        try:
            await self._write(
                obj, mode, "", dry_run=True, validate=action.validate, existed=existed
            )
        except NotFound as e:
            if not _MISSING_NAMESPACE.search(e.problem):
                raise
            return (
                f"{_label(action.key)} not validated: namespace {action.key.namespace} "
                "does not exist yet"
            )
        return f"{_label(action.key)} {self._verb(action)} (dry run)"

    async def _apply(self, action: Apply) -> str:
        try:
            result = await self._write(
                action.object,
                action.mode,
                action.field_manager,
                dry_run=False,
                validate=action.validate,
                existed=self._existed(action.task_id),
                migrate=action.migrate,
            )
        except (Invalid, Conflict) as e:
            if not action.force:
                raise
            logger.info("apply.recreating", object=str(action.key), reason=str(e))
            result = await self._recreate(action)
            self._applied.append(result)
            return f"{_label(action.key)} replaced (Force=true: {e.problem})"
        self._applied.append(result)
        return f"{_label(action.key)} {self._verb(action)}"

    async def _recreate(self, action: Apply) -> KubeObject:
        """Delete the object, wait until it is gone, then write it anew (Force=true)."""
        key = action.key
        await self._delete(key, action.api_version, Propagation.BACKGROUND)
        limit = self._settings.recreate_timeout
        pause = 0.05
        try:
            async with asyncio.timeout(limit):
                while True:
                    await self._cluster.get(
                        action.api_version, key.kind, key.name, key.namespace, time_limit=limit
                    )
                    await asyncio.sleep(pause)
                    pause = min(pause * 2, 1.0)
        except NotFound:
            return await self._write(
                action.object,
                action.mode,
                action.field_manager,
                dry_run=False,
                validate=action.validate,
                existed=False,
            )
        except TimeoutError:
            raise ClusterError(
                f"{_label(key)} was deleted to be re-created (Force=true) but is still there "
                f"after {limit:g}s; check its finalizers"
            ) from None

    async def _create_namespace(self, action: CreateNamespace) -> str:
        if action.mode is TaskMode.SERVER_SIDE:
            result = await self._write(
                action.object, TaskMode.SERVER_SIDE, action.field_manager, dry_run=False
            )
            self._applied.append(result)
            return f"{_label(action.key)} configured"
        try:
            result = await self._cluster.create(action.object, time_limit=self._timeout)
        except Conflict as e:
            if not _already_exists(e):
                raise
            return f"{_label(action.key)} already exists"
        self._applied.append(result)
        return f"{_label(action.key)} created"

    # -- deletions ----------------------------------------------------------------------

    async def _delete(
        self,
        key: ResourceKey,
        api_version: str,
        propagation: Propagation,
        preconditions: Preconditions | None = None,
    ) -> None:
        await self._cluster.delete(
            api_version,
            key.kind,
            key.name,
            key.namespace,
            propagation=propagation,
            preconditions=preconditions,
            missing_ok=True,
            time_limit=self._timeout,
        )

    async def _prune(self, action: Prune) -> str:
        guard = Preconditions(uid=action.uid) if action.uid else None
        try:
            await self._delete(action.key, action.api_version, action.propagation, guard)
        except Conflict as e:
            if guard is None or "Precondition failed" not in e.problem:
                raise
            return (
                f"{_label(action.key)} was replaced by another object since the sync was "
                "planned; that object was left alone"
            )
        return "pruned"

    async def _remove_finalizer(self, action: RemoveHookFinalizer) -> str:
        key = action.key
        for _ in range(FINALIZER_ATTEMPTS):
            try:
                live = await self._cluster.get(
                    action.api_version, key.kind, key.name, key.namespace, time_limit=self._timeout
                )
            except NotFound:
                return f"{_label(key)} is gone"
            meta = metadata(live)
            finalizers = meta.get("finalizers")
            finalizers = finalizers if isinstance(finalizers, list) else []
            if action.finalizer not in finalizers:
                return ""
            patch = {
                "metadata": {
                    "finalizers": [f for f in finalizers if f != action.finalizer] or None,
                    "resourceVersion": meta.get("resourceVersion"),
                }
            }
            try:
                await self._cluster.patch(
                    action.api_version,
                    key.kind,
                    key.name,
                    patch,
                    namespace=key.namespace,
                    patch_type=PatchType.MERGE,
                    time_limit=self._timeout,
                )
            except NotFound:
                return f"{_label(key)} is gone"
            except Conflict:
                continue
            return ""
        raise Conflict(
            f"the object kept changing under {FINALIZER_ATTEMPTS} attempts to remove the "
            f"finalizer {action.finalizer}; it is retried by the next step"
        )


async def perform(
    cluster: Cluster,
    batches: Sequence[Sequence[Action]],
    live_uids: Mapping[int, str],
    settings: ExecutorSettings | None = None,
) -> Performed:
    """Run a step's batches on `cluster`; `live_uids` maps task ids to their planned uid."""
    executor = Executor(cluster, lambda task_id: bool(live_uids.get(task_id)), settings)
    return await executor.run(batches)
