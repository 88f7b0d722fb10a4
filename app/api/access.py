"""Who may see and change which app: lookup, RBAC on the app, and the project's limits.

- An app the caller may not `get` (Argo CD's RBAC, `authz.py`), outside the namespaces
  Sluice manages, or absent from the registry gets the same answer, word for word:
  `application ns/name not found` (docs/threats.md, existence probing). An app the caller may
  see but not act on in the way asked: 403 `permission denied: ...`.
- The RBAC object of an app is `<project>/<name>` (`<project>/<namespace>/<name>` outside
  the control-plane namespace), with the project the app has now, as stored.
- An Application written through the API is checked against its AppProject before
  anything is written, as the sync engine checks every object later: source repos,
  destination, the app's namespace (`sourceNamespaces`) and the destination cluster.
"""

from typing import Any

from app.api import authz
from app.api.errors import BadRequest, Forbidden, NotFound
from app.api.routes import Call
from app.engine import project as rules
from app.engine.rbac import names
from app.model.application import Application
from app.model.identity import AppRef
from app.model.project import AppProject
from app.runtime.clusters import UnknownDestination
from app.runtime.runtime import Runtime


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


def app_object(call: Call[Any, Any], app: Application) -> str:
    """The app's RBAC object: `project/name`, or `project/namespace/name`."""
    return names.app_object(
        app.spec.project or "default", app.namespace, app.name, control_namespace(call.rt)
    )


async def may(call: Call[Any, Any], app: Application, action: str) -> bool:
    """Whether the caller may do `action` on the app's `applications` object."""
    return await authz.allowed(call, names.APPLICATIONS, action, app_object(call, app))


async def find_app(call: Call[Any, Any], ref: AppRef, action: str = names.GET) -> Application:
    """The registered app, if the caller may get it (the same 404 otherwise) and do
    `action` on it (403 otherwise)."""
    if not managed_namespace(call.rt, ref.namespace):
        raise not_found(ref)
    app = await call.rt.apps.get(ref)
    if app is None or not await may(call, app, names.GET):
        raise not_found(ref)
    if action != names.GET:
        await authz.require(call, names.APPLICATIONS, action, app_object(call, app))
    return app


async def named_app(call: Call[Any, Any], action: str) -> tuple[AppRef, Application]:
    """The app the path's `{name}` and the `appNamespace` query name, if the caller may
    get it (the same 404 otherwise) and do `action` on it (403 otherwise)."""
    ref = app_ref(call, call.path("name"), call.query.app_namespace)
    return ref, await find_app(call, ref, action)


def _sources_field(app: Application, index: int) -> str:
    return f"spec.sources[{index}].repoURL" if app.spec.is_multi_source else "spec.source.repoURL"


async def check_application(call: Call[Any, Any], app: Application) -> AppProject:
    """The app's project, once the app is within it; 400/403 naming the field otherwise."""
    project_name = app.spec.project or "default"
    if not managed_namespace(call.rt, app.namespace):
        raise BadRequest(
            f"metadata.namespace: Sluice does not manage Applications in namespace "
            f"{app.namespace!r}; use {control_namespace(call.rt)!r} or a namespace matching "
            "--application-namespaces"
        )
    project = await authz.load_project(call.rt, project_name)
    if project is None:
        raise BadRequest(
            f"spec.project: project {project_name!r} does not exist in namespace "
            f"{control_namespace(call.rt)}; create it first (POST /api/v1/projects)"
        )
    if not rules.app_namespace_permitted(
        project, app.name, app.namespace, control_namespace=control_namespace(call.rt)
    ).allowed:
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
