"""`/api/v1/applications`: list, get, create, update, delete.

Reads come from the app registry and the status store (what the pipeline knows); writes
go to the Application custom resource in the control-plane cluster (the watcher mirrors
them into the registry, as it does for `kubectl apply`). A body is validated by the model
and checked against its project before anything is written.
"""

from typing import Any

from aiohttp import web

from app import jsonio, log
from app.api import access, authz
from app.api.errors import BadRequest, Conflict
from app.api.fields import parse_fields, select
from app.api.handlers import writes
from app.api.list_items import ListItems
from app.api.routes import Call, Route
from app.api.shapes import ApplicationList, AppQuery, CreateQuery, DeleteQuery, ListQuery, Result
from app.cluster.errors import Conflict as ClusterConflict
from app.cluster.errors import NotFound as ClusterNotFound
from app.engine.rbac import names
from app.model import application as model
from app.model.annotations import RESOURCES_FINALIZER
from app.model.app_spec import ApplicationDestination, ApplicationSpec
from app.model.application import Application
from app.model.errors import SpecError
from app.model.label_selector import SelectorError, parse_label_selector
from app.model.meta import ObjectMeta
from app.model.status import ApplicationStatus

logger = log.get("api")
LIST_ITEMS = ListItems()
"""The list's decoded apps and encoded items, kept by what they were read from."""


async def with_status(call: Call[Any, Any], apps: list[Application]) -> list[Application]:
    """The apps with the status the pipeline stored (an empty status if never compared)."""
    found = await call.rt.status.read_statuses([app.ref for app in apps])
    for app, stored in zip(apps, found, strict=True):
        app.status = stored.status if stored is not None else ApplicationStatus()
    return apps


async def list_applications(call: Call[ListQuery, None]) -> web.Response:
    q = call.query
    try:
        selector = parse_label_selector(q.selector)
    except SelectorError as e:
        raise BadRequest(f"selector: {e.message}") from None
    selection = parse_fields(q.fields)
    chosen = []
    for ref, doc in await call.rt.apps.all_raw():
        if not access.managed_namespace(call.rt, ref.namespace) or (
            q.app_namespace and ref.namespace != q.app_namespace
        ):
            continue
        app = LIST_ITEMS.app(ref, doc)
        if (
            app is not None
            and (not q.project or app.spec.project in q.project)
            and selector.matches(app.metadata.labels)
            and await access.may(call, app, names.GET)
        ):
            chosen.append((ref, doc))
    history = selection is None or selection.wants("items", "status", "history")
    raws = await call.rt.status.read_raw([ref for ref, _ in chosen], history=history)
    items = []
    for (ref, doc), raw in zip(chosen, raws, strict=True):
        item = LIST_ITEMS.item(ref, doc, raw)
        if (
            item is not None
            and (q.sync is None or item.sync is q.sync)
            and (q.health is None or item.health is q.health)
        ):
            items.append(item.encoded)
    answer: dict[str, Any] = {"items": items}
    body = jsonio.dumps(answer if selection is None else select(answer, selection))
    return web.Response(body=body, content_type="application/json")


async def get_application(call: Call[AppQuery, None]) -> Application:
    _, app = await access.named_app(call, names.GET)
    return (await with_status(call, [app]))[0]


def _prepared(call: Call[Any, Any], app: Application) -> Application:
    if not app.metadata.namespace:
        app.metadata.namespace = access.control_namespace(call.rt)
    access.app_ref(call, app.name, app.namespace)
    if app.operation is not None:
        raise BadRequest(
            f"operation: an Application created through the API cannot carry an operation; "
            f"start it with POST /api/v1/applications/{app.name}/sync"
        )
    return app


async def create_application(call: Call[CreateQuery, Application]) -> Application:
    app = _prepared(call, call.body)
    await authz.require(call, names.APPLICATIONS, names.CREATE, access.app_object(call, app))
    await access.check_application(call, app)
    log_ = logger.bind(app=f"{app.namespace}/{app.name}", principal=call.principal.name)
    try:
        created = await call.rt.control_plane.create(writes.writable(app.to_dict()))
    except ClusterConflict:
        if not call.query.upsert:
            raise Conflict(
                f"application {app.namespace}/{app.name} already exists; update it with PUT "
                "or create with ?upsert=true"
            ) from None
        log_.info("api.application_upserted", decision="spec replaced (upsert)")
        return await _replace(call, app)
    log_.info("api.application_created", project=app.spec.project)
    return Application.from_dict(created)


async def _current(call: Call[Any, Any], app: Application, action: str) -> dict[str, Any]:
    """The Application as the cluster holds it, if the caller may get it (404 otherwise)
    and do `action` on it, as its project is now (403 otherwise)."""
    ref = access.app_ref(call, app.name, app.namespace)
    try:
        doc = await call.rt.control_plane.get(
            model.API_VERSION, model.KIND, app.name, namespace=app.namespace
        )
    except ClusterNotFound:
        raise access.not_found(ref) from None
    try:
        current = Application.from_dict(doc)
    except SpecError:
        current = None
    if current is None:
        await authz.require(call, names.APPLICATIONS, action, "*/*", hidden=access.not_found(ref))
        return doc
    if not await access.may(call, current, names.GET):
        raise access.not_found(ref)
    await authz.require(call, names.APPLICATIONS, action, access.app_object(call, current))
    return doc


async def _replace(call: Call[Any, Any], app: Application) -> Application:
    written = await writes.replace(
        call,
        await _current(call, app, names.UPDATE),
        writes.writable(app.to_dict()),
        app.metadata.resource_version,
        f"application {app.namespace}/{app.name}",
    )
    return Application.from_dict(written)


async def update_application(call: Call[AppQuery, Application]) -> Application:
    app = call.body
    name = call.path("name")
    namespace = call.query.app_namespace or access.control_namespace(call.rt)
    if app.name != name:
        raise BadRequest(f"metadata.name: {app.name!r} does not match the path's {name!r}")
    if app.metadata.namespace and app.metadata.namespace != namespace:
        raise BadRequest(
            f"metadata.namespace: {app.metadata.namespace!r} does not match {namespace!r} "
            "(set ?appNamespace= for apps outside the control-plane namespace)"
        )
    app.metadata.namespace = namespace
    _prepared(call, app)
    await _current(call, app, names.UPDATE)
    await authz.require(call, names.APPLICATIONS, names.UPDATE, access.app_object(call, app))
    await access.check_application(call, app)
    updated = await _replace(call, app)
    logger.info("api.application_updated", app=f"{namespace}/{name}", principal=call.principal.name)
    return updated


async def delete_application(call: Call[DeleteQuery, None]) -> Result:
    ref = access.app_ref(call, call.path("name"), call.query.app_namespace)
    probe = Application(
        metadata=ObjectMeta(name=ref.name, namespace=ref.namespace),
        spec=ApplicationSpec(destination=ApplicationDestination()),
    )
    doc = await _current(call, probe, names.DELETE)
    meta = doc.get("metadata") or {}
    finalizers = [f for f in meta.get("finalizers") or [] if f != RESOURCES_FINALIZER]
    if call.query.cascade:
        finalizers.append(RESOURCES_FINALIZER)
    if finalizers != list(meta.get("finalizers") or []):
        patch = {
            "metadata": {"finalizers": finalizers, "resourceVersion": meta.get("resourceVersion")}
        }
        await call.rt.control_plane.patch(
            model.API_VERSION, model.KIND, ref.name, patch, namespace=ref.namespace
        )
    await call.rt.control_plane.delete(
        model.API_VERSION, model.KIND, ref.name, ref.namespace, missing_ok=True
    )
    what = "with its resources" if call.query.cascade else "leaving its resources in place"
    logger.info(
        "api.application_deleted",
        app=str(ref),
        cascade=call.query.cascade,
        principal=call.principal.name,
    )
    return Result(str(ref), f"application {ref} deleted ({what})")


TAG = "applications"
BASE = "/api/v1/applications"
ROUTES = (
    Route(
        method="GET",
        path=BASE,
        handler=list_applications,
        operation_id="listApplications",
        summary="List applications with their status",
        tag=TAG,
        query=ListQuery,
        response=ApplicationList,
        errors=(400,),
    ),
    Route(
        method="POST",
        path=BASE,
        handler=create_application,
        operation_id="createApplication",
        summary="Create an application (Argo CD's Application YAML as JSON)",
        tag=TAG,
        query=CreateQuery,
        body=Application,
        example={
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": "guestbook"},
            "spec": {
                "project": "default",
                "source": {
                    "repoURL": "https://github.com/argoproj/argocd-example-apps.git",
                    "path": "guestbook",
                    "targetRevision": "HEAD",
                },
                "destination": {
                    "server": "https://kubernetes.default.svc",
                    "namespace": "guestbook",
                },
            },
        },
        response=Application,
        status=201,
        errors=(400, 403, 409, 413, 415, 422),
    ),
    Route(
        method="GET",
        path=BASE + "/{name}",
        handler=get_application,
        operation_id="getApplication",
        summary="An application's spec and status",
        tag=TAG,
        query=AppQuery,
        response=Application,
        errors=(400, 404),
    ),
    Route(
        method="PUT",
        path=BASE + "/{name}",
        handler=update_application,
        operation_id="updateApplication",
        summary="Replace an application's spec, labels, annotations and finalizers",
        tag=TAG,
        query=AppQuery,
        body=Application,
        response=Application,
        errors=(400, 403, 404, 409, 413, 415, 422),
    ),
    Route(
        method="DELETE",
        path=BASE + "/{name}",
        handler=delete_application,
        operation_id="deleteApplication",
        summary="Delete an application (cascade: with its resources)",
        tag=TAG,
        query=DeleteQuery,
        response=Result,
        errors=(400, 403, 404, 409),
    ),
)
