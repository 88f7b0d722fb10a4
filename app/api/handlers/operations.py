"""Application operations: sync, rollback, terminate, refresh.

A sync or rollback becomes an `Operation` exactly as `argocd app sync` builds it, checked
against the app's project (its sources and destination, and every resource of a
selective sync by group, kind and namespace), then handed to
`app.runtime.operations.start_operation`, which refuses while another operation runs (409).
A sync or rollback the project's sync windows block now (`app.engine.sync_windows`, as a
manual sync) is refused with 403 naming the project and window, as Argo CD's server
refuses it (PermissionDenied), and nothing starts. A refresh is a `RefreshRequest` on the
bus: `latest`, or `force` when hard.
"""

import datetime as dt
from typing import Any

from app import log
from app.api import access
from app.api.errors import BadRequest, Conflict, Forbidden
from app.api.routes import Call, Route
from app.api.shapes import (
    AppQuery,
    Empty,
    OperationStarted,
    RefreshQuery,
    Result,
    RetryRequest,
    RollbackRequest,
    SyncRequest,
)
from app.bus.messages import REFRESH, RefreshRequest
from app.bus.publish import publish
from app.cluster.errors import UnknownKind
from app.engine import project as rules
from app.engine.history import RollbackError, rollback_operation
from app.engine.rbac import names
from app.engine.sync_windows import evaluate
from app.model.app_spec import Backoff, RetryStrategy
from app.model.application import Application
from app.model.errors import SpecError
from app.model.identity import AppRef
from app.model.operation import (
    Operation,
    OperationInitiator,
    SyncOperation,
    SyncOperationResource,
    SyncStrategySpec,
)
from app.model.project import AppProject
from app.model.resource import GroupKind
from app.model.sync import RefreshLevel
from app.runtime.operations import request_termination, start_operation

logger = log.get("api")


def _retry(request: RetryRequest | None, app: Application) -> RetryStrategy | None:
    """The request's retry strategy, else the app's `syncPolicy.retry` (as Argo CD does)."""
    if request is None:
        return app.spec.sync_policy.retry if app.spec.sync_policy else None
    backoff = None
    if request.backoff is not None:
        backoff = Backoff(
            duration=request.backoff.duration,
            factor=request.backoff.factor,
            max_duration=request.backoff.max_duration,
        )
        try:
            backoff.validate("retry.backoff")
        except SpecError as e:
            raise BadRequest(f"invalid request body: {e}") from None
    return RetryStrategy(limit=request.limit, backoff=backoff, refresh=request.refresh)


async def _check_resources(
    call: Call[Any, Any], app: Application, project: AppProject, body: SyncRequest
) -> None:
    """Every resource of a selective sync must be a kind and namespace the project allows."""
    if not body.resources:
        return
    cluster = call.rt.clusters.resolve(app.spec.destination)
    dest = app.spec.destination
    for i, resource in enumerate(body.resources):
        where = f"resources[{i}] ({resource.group}/{resource.kind} {resource.name})"
        try:
            served = await cluster.preferred_resource(GroupKind(resource.group, resource.kind))
        except UnknownKind:
            raise BadRequest(
                f"{where}: the destination cluster serves no kind {resource.kind!r} in group "
                f"{resource.group!r}"
            ) from None
        permission = rules.group_kind_permitted(
            project, resource.group, resource.kind, namespaced=served.namespaced
        )
        namespace = resource.namespace or dest.namespace
        if permission.allowed and served.namespaced and namespace:
            permission = rules.namespace_permitted(
                project, namespace, server=dest.server, name=dest.name
            )
        if not permission.allowed:
            raise Forbidden(f"{where}: {permission.message}")


async def _check_tracked(call: Call[Any, Any], app: Application, body: SyncRequest) -> None:
    """Every resource of a selective sync must be one the app tracks (its last comparison's
    `status.resources`); 400 naming those that match none. Before the first comparison
    the sync itself refuses them when it is planned."""
    if not body.resources:
        return
    stored = await call.rt.status.read_status(AppRef(app.namespace, app.name))
    if stored is None:
        return
    tracked = stored.status.resources
    missing = [
        r
        for r in body.resources
        if not any(
            (t.group, t.kind, t.name) == (r.group, r.kind, r.name)
            and (not r.namespace or r.namespace == t.namespace)
            for t in tracked
        )
    ]
    if missing:
        listed = ", ".join(
            f"{r.group}:{r.kind}:{r.namespace + '/' if r.namespace else ''}{r.name}"
            for r in missing
        )
        raise BadRequest(
            f"resources: {listed} match none of the resources of application "
            f"{app.namespace}/{app.name}; select resources it manages (sluice app resources "
            f"{app.name} lists them)"
        )


def _check_windows(ref: AppRef, app: Application, project: AppProject, what: str) -> None:
    """Refuse a manual sync the project's sync windows block now (403)."""
    verdict = evaluate(project, app, dt.datetime.now(dt.UTC), manual=True)
    if verdict.allowed:
        return
    logger.info("api.sync_window_refused", app=str(ref), what=what, reason=verdict.reason)
    advice = "" if verdict.problems else "; wait for the window, or set manualSync on it"
    raise Forbidden(f"cannot {what} application {ref}: {verdict.reason}{advice}")


def _sync_operation(call: Call[AppQuery, SyncRequest], app: Application) -> Operation:
    body = call.body
    strategy = {"force": True} if body.force else {}
    return Operation(
        sync=SyncOperation(
            revision=body.revision,
            prune=body.prune,
            dry_run=body.dry_run,
            sync_strategy=SyncStrategySpec(
                apply=strategy if body.strategy == "apply" else None,
                hook=strategy if body.strategy == "hook" else None,
            ),
            resources=[
                SyncOperationResource(
                    kind=r.kind, name=r.name, group=r.group, namespace=r.namespace
                )
                for r in body.resources
            ],
            sync_options=list(body.sync_options or app.spec.sync_options),
        ),
        initiated_by=OperationInitiator(username=call.principal.name),
        retry=_retry(body.retry, app),
    )


async def _start(
    call: Call[Any, Any], ref: AppRef, app: Application, operation: Operation, what: str
) -> OperationStarted:
    reason = f"{what} requested by {call.principal.name} through the API"
    operation_id = await start_operation(call.rt, app, operation, reason=reason)
    log_ = logger.bind(app=str(ref), principal=call.principal.name, what=what)
    if operation_id is None:
        log_.info("api.operation_refused", reason="another operation is in progress")
        raise Conflict(
            f"another operation is already in progress on application {ref}; wait for it "
            f"or terminate it (sluice app terminate {ref.name})"
        )
    sync = operation.sync
    log_.info(
        "api.operation_started",
        operation=operation_id,
        revision=sync.revision if sync else "",
        dry_run=bool(sync and sync.dry_run),
    )
    return OperationStarted(str(ref), operation_id, f"{what} of {ref} started")


async def sync_application(call: Call[AppQuery, SyncRequest]) -> OperationStarted:
    ref, app = await access.named_app(call, names.SYNC)
    project = await access.check_application(call, app)
    _check_windows(ref, app, project, "sync")
    await _check_resources(call, app, project, call.body)
    await _check_tracked(call, app, call.body)
    return await _start(call, ref, app, _sync_operation(call, app), "sync")


async def rollback_application(call: Call[AppQuery, RollbackRequest]) -> OperationStarted:
    ref, app = await access.named_app(call, names.SYNC)
    project = await access.check_application(call, app)
    _check_windows(ref, app, project, "roll back")
    app.status.history = await call.rt.history.load(ref)
    try:
        operation = rollback_operation(
            app,
            call.body.id,
            username=call.principal.name,
            dry_run=call.body.dry_run,
            prune=call.body.prune,
        )
    except RollbackError as e:
        raise BadRequest(str(e)) from None
    return await _start(call, ref, app, operation, f"rollback to history entry {call.body.id}")


async def terminate_operation(call: Call[AppQuery, None]) -> Result:
    ref, app = await access.named_app(call, names.SYNC)
    if not await request_termination(call.rt, app):
        raise Conflict(f"no operation is in progress on application {ref}; nothing to terminate")
    logger.info("api.termination_requested", app=str(ref), principal=call.principal.name)
    return Result(str(ref), f"termination of the running operation of {ref} requested")


async def refresh_application(call: Call[RefreshQuery, Empty]) -> Result:
    ref, _ = await access.named_app(call, names.GET)
    level = RefreshLevel.FORCE if call.query.hard else RefreshLevel.LATEST
    kind = "hard refresh" if call.query.hard else "refresh"
    await publish(
        call.rt.bus,
        REFRESH,
        RefreshRequest(ref, level, f"{kind} requested by {call.principal.name} through the API"),
    )
    logger.info("api.refresh_requested", app=str(ref), level=level.name.lower())
    return Result(str(ref), f"{kind} of {ref} requested")


TAG = "operations"
BASE = "/api/v1/applications/{name}"
ROUTES = (
    Route(
        method="POST",
        path=BASE + "/sync",
        handler=sync_application,
        operation_id="syncApplication",
        summary="Start a sync operation",
        tag=TAG,
        query=AppQuery,
        body=SyncRequest,
        example={
            "prune": True,
            "resources": [{"group": "apps", "kind": "Deployment", "name": "web"}],
        },
        response=OperationStarted,
        status=202,
        errors=(400, 403, 404, 409, 413, 415),
    ),
    Route(
        method="POST",
        path=BASE + "/rollback",
        handler=rollback_application,
        operation_id="rollbackApplication",
        summary="Roll back to a history entry (refused while auto-sync is on)",
        tag=TAG,
        query=AppQuery,
        body=RollbackRequest,
        response=OperationStarted,
        status=202,
        errors=(400, 403, 404, 409, 413, 415),
    ),
    Route(
        method="DELETE",
        path=BASE + "/operation",
        handler=terminate_operation,
        operation_id="terminateOperation",
        summary="Terminate the running operation",
        tag=TAG,
        query=AppQuery,
        response=Result,
        errors=(400, 403, 404, 409),
    ),
    Route(
        method="POST",
        path=BASE + "/refresh",
        handler=refresh_application,
        operation_id="refreshApplication",
        summary="Compare the app again (hard: bypass the manifest caches)",
        tag=TAG,
        query=RefreshQuery,
        body=Empty,
        response=Result,
        status=202,
        errors=(400, 404, 415),
    ),
)
