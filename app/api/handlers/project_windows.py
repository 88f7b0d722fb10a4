"""`GET /api/v1/projects/{name}/syncwindows`: every sync window of a project, open or not.

The project page of the web UI shows each window with its current state, whatever apps
it selects: open now (and until when) or closed (and when it opens next), or the field
that makes it unreadable (such a window blocks the apps it selects).
"""

import datetime as dt
from dataclasses import dataclass, field

from app.api.handlers.projects import get_project
from app.api.routes import Call, Route
from app.engine.sync_windows import WindowProblem, window_state
from app.model.timestamps import format_time


@dataclass
class ProjectSyncWindow:
    kind: str
    schedule: str
    duration: str
    time_zone: str
    manual_sync: bool
    applications: list[str]
    namespaces: list[str]
    clusters: list[str]
    active: bool = field(metadata={"doc": "open now"})
    changes_at: str = field(metadata={"doc": "when it closes (open) or next opens (closed)"})
    problem: str = field(metadata={"doc": "what makes the window unreadable; empty if none"})


@dataclass
class ProjectSyncWindows:
    project: str
    windows: list[ProjectSyncWindow]


async def project_windows(call: Call[None, None]) -> ProjectSyncWindows:
    project = await get_project(call)
    now = dt.datetime.now(dt.UTC)
    shown: list[ProjectSyncWindow] = []
    for index, window in enumerate(project.spec.sync_windows):
        state = window_state(index, window, now)
        problem = state.message if isinstance(state, WindowProblem) else ""
        active = not isinstance(state, WindowProblem) and state.active
        changes = None if isinstance(state, WindowProblem) else state.changes_at
        shown.append(
            ProjectSyncWindow(
                kind=window.kind,
                schedule=window.schedule,
                duration=window.duration,
                time_zone=window.time_zone,
                manual_sync=window.manual_sync,
                applications=list(window.applications),
                namespaces=list(window.namespaces),
                clusters=list(window.clusters),
                active=active,
                changes_at=format_time(changes) if changes is not None else "",
                problem=problem,
            )
        )
    return ProjectSyncWindows(project.metadata.name, shown)


ROUTES = (
    Route(
        method="GET",
        path="/api/v1/projects/{name}/syncwindows",
        handler=project_windows,
        operation_id="getProjectSyncWindows",
        summary="A project's sync windows, each with whether it is open now",
        tag="projects",
        response=ProjectSyncWindows,
        errors=(404, 409),
    ),
)
