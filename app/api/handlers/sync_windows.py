"""`GET /api/v1/applications/{name}/syncwindows`: the project's sync windows for one app.

Argo CD's `GetApplicationSyncWindows`: the windows of the app's project that select it
(`assignedWindows`), those open now (`activeWindows`), and whether a manual sync may
start now (`canSync`), decided by `app.engine.sync_windows` exactly as a sync request is.
Sluice adds `message`, the verdict's reason. A window that cannot be read is listed
among the assigned ones and makes `canSync` false with `message` naming the field
(Argo CD answers an error instead); the sync endpoints refuse with the same words.
"""

import datetime as dt
from collections.abc import Iterable

from app.api import access, authz
from app.api.routes import Call, Route
from app.api.shapes import ApplicationSyncWindow, ApplicationSyncWindowsResponse, AppQuery
from app.engine.rbac import names
from app.engine.sync_windows import evaluate, selecting
from app.model.project import SyncWindow


def _shown(windows: Iterable[SyncWindow]) -> list[ApplicationSyncWindow]:
    return [ApplicationSyncWindow(w.kind, w.schedule, w.duration, w.manual_sync) for w in windows]


async def sync_windows(call: Call[AppQuery, None]) -> ApplicationSyncWindowsResponse:
    _, app = await access.named_app(call, names.GET)
    name = app.spec.project or "default"
    project = await authz.load_project(call.rt, name)
    if project is None:
        return ApplicationSyncWindowsResponse(
            [],
            [],
            False,
            f"spec.project: project {name!r} does not exist in namespace "
            f"{access.control_namespace(call.rt)}; no sync can start until it is created",
        )
    verdict = evaluate(project, app, dt.datetime.now(dt.UTC), manual=True)
    return ApplicationSyncWindowsResponse(
        _shown(state.window for state in verdict.active),
        _shown(window for _, window in selecting(project, app)),
        verdict.allowed,
        verdict.reason,
    )


ROUTES = (
    Route(
        method="GET",
        path="/api/v1/applications/{name}/syncwindows",
        handler=sync_windows,
        operation_id="getApplicationSyncWindows",
        summary="The project's sync windows selecting the app, and whether it may sync now",
        tag="applications",
        query=AppQuery,
        response=ApplicationSyncWindowsResponse,
        errors=(400, 404),
    ),
)
