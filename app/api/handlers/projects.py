"""`/api/v1/projects`: AppProject CRUD, through the control-plane cluster.

RBAC (`projects` get/create/update/delete on the project's name): a project the caller
may not get is 404, like a missing one, and lists leave it out. A project that apps
still use cannot be deleted (409 naming how many), as in Argo CD.
"""

import re
from typing import Any

from app import log
from app.api import access, authz
from app.api.errors import BadRequest, Conflict, NotFound
from app.api.handlers import writes
from app.api.routes import Call, Route
from app.api.shapes import NAME_MAX, NAME_PATTERN, ProjectList, Result
from app.cluster.errors import Conflict as ClusterConflict
from app.cluster.errors import NotFound as ClusterNotFound
from app.engine.rbac import names
from app.model import project as model
from app.model.errors import SpecError
from app.model.project import AppProject

logger = log.get("api")
_NAME = re.compile(NAME_PATTERN)


def _not_found(name: str) -> NotFound:
    return NotFound(f"project {name} not found")


def _check_name(name: str, where: str) -> None:
    if len(name) > NAME_MAX or not _NAME.match(name):
        raise BadRequest(f"{where}: {name[:60]!r} is not a valid Kubernetes name")


def _parse(doc: dict[str, Any]) -> AppProject | None:
    try:
        return AppProject.from_dict(doc)
    except SpecError as e:
        logger.warning("api.project_unreadable", error=str(e), action="left out")
        return None


async def list_projects(call: Call[None, None]) -> ProjectList:
    found = await call.rt.control_plane.list(
        model.API_VERSION, model.KIND, namespace=access.control_namespace(call.rt)
    )
    projects = [p for p in (_parse(d) for d in found.items) if p is not None]
    visible = [p for p in projects if await authz.allowed(call, names.PROJECTS, names.GET, p.name)]
    return ProjectList(sorted(visible, key=lambda p: p.name))


async def visible(call: Call[Any, Any], name: str, action: str = names.GET) -> None:
    """Go on if the caller may get the project (404 otherwise) and do `action` (403)."""
    _check_name(name, "name")
    await authz.require(call, names.PROJECTS, names.GET, name, hidden=_not_found(name))
    if action != names.GET:
        await authz.require(call, names.PROJECTS, action, name)


async def current(call: Call[Any, Any], name: str, action: str = names.GET) -> dict[str, Any]:
    """The project as the cluster holds it, if the caller may get it and do `action`."""
    await visible(call, name, action)
    try:
        return await call.rt.control_plane.get(
            model.API_VERSION, model.KIND, name, namespace=access.control_namespace(call.rt)
        )
    except ClusterNotFound:
        raise _not_found(name) from None


async def get_project(call: Call[None, None]) -> AppProject:
    name = call.path("name")
    try:
        doc = await current(call, name)
    except NotFound:
        if name == "default" and await authz.allowed(call, names.PROJECTS, names.GET, name):
            return AppProject.default()
        raise
    project = _parse(doc)
    if project is None:
        raise Conflict(f"project {name} is stored but cannot be read; fix it with kubectl")
    return project


def _document(call: Call[Any, Any], project: AppProject) -> dict[str, Any]:
    namespace = access.control_namespace(call.rt)
    if project.metadata.namespace and project.metadata.namespace != namespace:
        raise BadRequest(
            f"metadata.namespace: AppProjects live in the control-plane namespace {namespace!r}"
        )
    _check_name(project.name, "metadata.name")
    doc = writes.writable(project.to_dict())
    doc["metadata"]["namespace"] = namespace
    return doc


async def create_project(call: Call[None, AppProject]) -> AppProject:
    doc = _document(call, call.body)
    await authz.require(call, names.PROJECTS, names.CREATE, call.body.name)
    try:
        created = await call.rt.control_plane.create(doc)
    except ClusterConflict:
        raise Conflict(f"project {call.body.name} already exists; update it with PUT") from None
    logger.info("api.project_created", project=call.body.name, principal=call.principal.name)
    return AppProject.from_dict(created)


async def update_project(call: Call[None, AppProject]) -> AppProject:
    name = call.path("name")
    if call.body.name != name:
        raise BadRequest(f"metadata.name: {call.body.name!r} does not match the path's {name!r}")
    stored = await current(call, name, names.UPDATE)
    wanted = _document(call, call.body)
    written = await writes.replace(
        call, stored, wanted, call.body.metadata.resource_version, f"project {name}"
    )
    logger.info("api.project_updated", project=name, principal=call.principal.name)
    return AppProject.from_dict(written)


async def delete_project(call: Call[None, None]) -> Result:
    name = call.path("name")
    await current(call, name, names.DELETE)
    users = [a for a in await call.rt.apps.all() if a.spec.project == name]
    if users:
        raise Conflict(
            f"project {name} is used by {len(users)} application(s) (e.g. "
            f"{users[0].namespace}/{users[0].name}); move or delete them first"
        )
    await call.rt.control_plane.delete(
        model.API_VERSION, model.KIND, name, access.control_namespace(call.rt), missing_ok=True
    )
    logger.info("api.project_deleted", project=name, principal=call.principal.name)
    return Result("", f"project {name} deleted")


TAG = "projects"
BASE = "/api/v1/projects"
ROUTES = (
    Route(
        method="GET",
        path=BASE,
        handler=list_projects,
        operation_id="listProjects",
        summary="List AppProjects",
        tag=TAG,
        response=ProjectList,
    ),
    Route(
        method="POST",
        path=BASE,
        handler=create_project,
        operation_id="createProject",
        summary="Create an AppProject",
        tag=TAG,
        body=AppProject,
        response=AppProject,
        status=201,
        errors=(400, 403, 409, 413, 415, 422),
    ),
    Route(
        method="GET",
        path=BASE + "/{name}",
        handler=get_project,
        operation_id="getProject",
        summary="An AppProject",
        tag=TAG,
        response=AppProject,
        errors=(400, 404, 409),
    ),
    Route(
        method="PUT",
        path=BASE + "/{name}",
        handler=update_project,
        operation_id="updateProject",
        summary="Replace an AppProject's spec, labels and annotations",
        tag=TAG,
        body=AppProject,
        response=AppProject,
        errors=(400, 403, 404, 409, 413, 415, 422),
    ),
    Route(
        method="DELETE",
        path=BASE + "/{name}",
        handler=delete_project,
        operation_id="deleteProject",
        summary="Delete an AppProject no application uses",
        tag=TAG,
        response=Result,
        errors=(400, 403, 404, 409),
    ),
)
