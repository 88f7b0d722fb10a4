"""Who may see and change what: app lookup, token scope, and the project's limits.

- An app outside the token's projects, outside the namespaces Sluice manages, or absent
  from the registry gets the same answer, word for word: `application ns/name not found`
  (THREATS.md, existence probing).
- A read-only token may not change anything (403); projects themselves may only be
  changed by a token for every project (a scoped token could otherwise widen its own
  project).
- An Application written through the API is checked against its AppProject before
  anything is written, as the sync engine checks every object later: source repos,
  destination, the app's namespace (`sourceNamespaces`) and the destination cluster.
"""

from typing import Any

from app.api.errors import BadRequest, Forbidden, NotFound
from app.api.routes import Call
from app.cluster.errors import NotFound as ClusterNotFound
from app.engine import project as rules
from app.model import project as project_model
from app.model.application import Application
from app.model.identity import AppRef
from app.model.project import AppProject
from app.runtime.clusters import UnknownDestination
from app.runtime.runtime import Runtime

PROJECT_API_VERSION = project_model.API_VERSION


def control_namespace(rt: Runtime) -> str:
    return rt.settings.control_plane.namespace


def managed_namespace(rt: Runtime, namespace: str) -> bool:
    """Whether Sluice reconciles Applications in `namespace`."""
    control = rt.settings.control_plane
    return namespace == control.namespace or any(
        rules.glob_match(pattern, namespace, negation=False)
        for pattern in control.application_namespaces
    )


def app_ref(call: Call[Any, Any], name: str, namespace: str = "") -> AppRef:
    """The app a request names; 400 when the name cannot be an Application's."""
    try:
        return AppRef(namespace or control_namespace(call.rt), name)
    except ValueError as e:
        raise BadRequest(str(e)) from None


def not_found(ref: AppRef) -> NotFound:
    return NotFound(f"application {ref} not found")


async def find_app(call: Call[Any, Any], ref: AppRef) -> Application:
    """The registered app, if this token may see it; the same 404 otherwise."""
    if not managed_namespace(call.rt, ref.namespace):
        raise not_found(ref)
    app = await call.rt.apps.get(ref)
    if app is None or not call.principal.sees(app.spec.project):
        raise not_found(ref)
    return app


async def named_app(call: Call[Any, Any]) -> tuple[AppRef, Application]:
    """The app the path's `{name}` and the `appNamespace` query name, if this token may
    see it; the same 404 otherwise."""
    ref = app_ref(call, call.path("name"), call.query.app_namespace)
    return ref, await find_app(call, ref)


def require_write(call: Call[Any, Any]) -> None:
    if call.principal.read_only:
        raise Forbidden(f"token {call.principal.name!r} is read-only; it may not change anything")


def require_all_projects(call: Call[Any, Any]) -> None:
    require_write(call)
    if "*" not in call.principal.projects:
        raise Forbidden(
            f"token {call.principal.name!r} is limited to projects "
            f"{', '.join(call.principal.projects)}; only a token for every project may "
            "change AppProjects"
        )


def require_project(call: Call[Any, Any], project: str) -> None:
    if not call.principal.sees(project):
        raise Forbidden(
            f"token {call.principal.name!r} may not use project {project!r} (it is limited "
            f"to {', '.join(call.principal.projects) or 'no project'})"
        )


async def load_project(rt: Runtime, name: str) -> AppProject | None:
    """The AppProject as the cluster holds it; Argo CD's permissive `default` if absent."""
    try:
        doc = await rt.control_plane.get(
            PROJECT_API_VERSION, project_model.KIND, name, namespace=control_namespace(rt)
        )
    except ClusterNotFound:
        return AppProject.default() if name == "default" else None
    return AppProject.from_dict(doc, source=f"AppProject {name}")


def _sources_field(app: Application, index: int) -> str:
    return f"spec.sources[{index}].repoURL" if app.spec.is_multi_source else "spec.source.repoURL"


async def check_application(call: Call[Any, Any], app: Application) -> AppProject:
    """The app's project, once the app is within it; 400/403 naming the field otherwise."""
    project_name = app.spec.project or "default"
    require_project(call, project_name)
    if not managed_namespace(call.rt, app.namespace):
        raise BadRequest(
            f"metadata.namespace: Sluice does not manage Applications in namespace "
            f"{app.namespace!r}; use {control_namespace(call.rt)!r} or a namespace matching "
            "--application-namespaces"
        )
    project = await load_project(call.rt, project_name)
    if project is None:
        raise BadRequest(
            f"spec.project: project {project_name!r} does not exist in namespace "
            f"{control_namespace(call.rt)}; create it first (POST /api/v1/projects)"
        )
    if app.namespace != control_namespace(call.rt) and not any(
        rules.glob_match(pattern, app.namespace) for pattern in project.spec.source_namespaces
    ):
        raise Forbidden(
            f"metadata.namespace: project {project_name!r} does not allow Applications in "
            f"namespace {app.namespace!r}; add it to the project's sourceNamespaces"
        )
    for i, source in enumerate(app.spec.all_sources):
        permission = rules.source_permitted(project, source.repo_url)
        if not permission.allowed:
            raise Forbidden(f"{_sources_field(app, i)}: {permission.message}")
    dest = app.spec.destination
    permission = rules.destination_permitted(
        project, server=dest.server, name=dest.name, namespace=dest.namespace
    )
    if not permission.allowed:
        raise Forbidden(f"spec.destination: {permission.message}")
    try:
        call.rt.clusters.resolve(dest)
    except UnknownDestination as e:
        raise BadRequest(str(e)) from None
    return project
