"""Resource actions on one object of an app's tree: list them, run one (Argo CD's routes).

- `GET …/resource/actions?namespace=&resourceName=&version=&kind=&group=`: the actions the
  live object offers (`app.engine.actions`), each with whether it is possible now. RBAC:
  `applications, get` on the app.
- `POST …/resource/actions` with `{action, resourceActionParameters}`: runs it on the live
  object as the cluster holds it now, and applies what it returns through the runtime's
  cluster client: a merge patch of the object (its `status` through the status
  subresource when the kind has one), and any objects it creates. RBAC: `applications,
  action/<group>/<Kind>/<action>` on the app; the project must permit the kind and
  namespace of every object written.

An object outside the app's resource tree is 404, like an app the caller may not see.
"""

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from app import log
from app.api import access, authz
from app.api.errors import BadRequest, Conflict, Forbidden, NotFound
from app.api.handlers.resource_ops import tree_node
from app.api.routes import Call, Route
from app.api.shapes import NAME_MAX, Result
from app.cluster.cluster import Cluster
from app.cluster.errors import Invalid
from app.cluster.errors import NotFound as ClusterNotFound
from app.engine import project as rules
from app.engine.actions import ActionError, ImpactedResource, Operation, merge_patch
from app.engine.actions.types import MAX_PARAM_CHARS, MAX_PARAMS
from app.engine.rbac import names
from app.engine.redact import redact_text
from app.model.application import Application
from app.model.project import AppProject
from app.model.resource import KubeObject, metadata
from app.runtime.clusters import UnknownDestination

logger = log.get("api")


@dataclass
class ActionQuery:
    """One object of the app's resource tree (Argo CD's query names)."""

    kind: str = field(metadata={"doc": "the object's kind", "max_length": NAME_MAX})
    resource_name: str = field(metadata={"doc": "the object's name", "max_length": NAME_MAX})
    group: str = field(default="", metadata={"doc": "API group; empty for core", "max_length": 253})
    version: str = field(default="", metadata={"doc": "API version", "max_length": 63})
    namespace: str = field(
        default="", metadata={"doc": "empty for cluster-scoped", "max_length": 63}
    )
    app_namespace: str = field(
        default="", metadata={"doc": "namespace of the Application", "max_length": 63}
    )


@dataclass
class ActionParameter:
    name: str = field(metadata={"max_length": MAX_PARAM_CHARS})
    value: str = field(default="", metadata={"max_length": MAX_PARAM_CHARS})


@dataclass
class RunAction:
    action: str = field(metadata={"doc": "the action's name", "max_length": NAME_MAX})
    resource_action_parameters: list[ActionParameter] = field(
        default_factory=list,
        metadata={"doc": "the action's parameters", "max_items": MAX_PARAMS},
    )


@dataclass
class ActionParamShape:
    name: str
    type: str = ""
    default: str = ""


@dataclass
class Action:
    name: str
    disabled: bool = False
    icon_class: str = ""
    display_name: str = ""
    params: list[ActionParamShape] = field(default_factory=list)


@dataclass
class Actions:
    actions: list[Action]


def _cluster(call: Call[Any, Any], app: Application) -> Cluster:
    try:
        return call.rt.clusters.resolve(app.spec.destination)
    except UnknownDestination as e:
        raise Conflict(str(e)) from None


async def _live(call: Call[ActionQuery, Any], app: Application) -> tuple[Cluster, KubeObject]:
    node = await tree_node(call, app)
    group, version = node.get("group", ""), call.query.version or node.get("version", "")
    api_version = f"{group}/{version}" if group else version
    cluster = _cluster(call, app)
    try:
        obj = await cluster.get(api_version, node["kind"], node["name"], node.get("namespace", ""))
    except ClusterNotFound:
        raise NotFound(
            f"{node['kind']} {node['name']} of application {app.ref} no longer exists"
        ) from None
    return cluster, obj


async def list_actions(call: Call[ActionQuery, None]) -> Actions:
    _, app = await access.named_app(call, names.GET)
    if call.rt.system.not_ready:
        raise Conflict(call.rt.system.not_ready)
    _, obj = await _live(call, app)
    try:
        offered = call.rt.system.settings.actions.offered(obj)
    except ActionError as e:
        raise Conflict(str(e)) from None
    return Actions(
        [
            Action(
                a.name,
                a.disabled,
                a.icon_class,
                a.display_name,
                [ActionParamShape(p.name, p.type, p.default) for p in a.params],
            )
            for a in offered
        ]
    )


def _permitted(project: AppProject, app: Application, obj: KubeObject) -> None:
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    kind, meta = str(obj.get("kind", "")), metadata(obj)
    namespace = str(meta.get("namespace") or "")
    permission = rules.group_kind_permitted(project, group, kind, namespaced=bool(namespace))
    if permission.allowed and namespace:
        dest = app.spec.destination
        permission = rules.namespace_permitted(
            project, namespace, server=dest.server, name=dest.name
        )
    if not permission.allowed:
        raise Forbidden(f"{kind} {meta.get('name')}: {permission.message}")


async def _apply(cluster: Cluster, before: KubeObject, change: ImpactedResource) -> None:
    if change.operation is Operation.CREATE:
        await cluster.create(change.obj)
        return
    patch = merge_patch(before, change.obj)
    status = patch.pop("status", None)
    api_version, kind = str(before["apiVersion"]), str(before["kind"])
    meta = metadata(before)
    name, namespace = str(meta["name"]), str(meta.get("namespace") or "")
    if patch:
        await cluster.patch(api_version, kind, name, patch, namespace=namespace)
    if status is not None:
        try:
            await cluster.patch(
                api_version,
                kind,
                name,
                {"status": status},
                namespace=namespace,
                subresource="status",
            )
        except ClusterNotFound:
            # No status subresource: status is part of the object itself.
            await cluster.patch(api_version, kind, name, {"status": status}, namespace=namespace)


async def run_action(call: Call[ActionQuery, RunAction]) -> Result:
    if call.rt.system.not_ready:
        raise Conflict(call.rt.system.not_ready)
    _, app = await access.named_app(call, names.GET)
    q, name = call.query, call.body.action
    await authz.require(
        call,
        names.APPLICATIONS,
        names.lua_action(q.group, q.kind, name),
        access.app_object(call, app),
    )
    project = await authz.load_project(call.rt, app.spec.project or "default")
    if project is None:
        raise Conflict(f"project {app.spec.project!r} of application {app.ref} does not exist")
    cluster, obj = await _live(call, app)
    params = {p.name: p.value for p in call.body.resource_action_parameters}
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        changes = call.rt.system.settings.actions.run(obj, name, params, now=now)
    except ActionError as e:
        raise BadRequest(str(e)) from None
    for change in changes:
        _permitted(project, app, change.obj)
    try:
        for change in changes:
            await _apply(cluster, obj, change)
    except Invalid as e:
        raise BadRequest(
            f"the cluster refused the action's change: {redact_text(str(e))}"
        ) from None
    logger.info(
        "api.resource_action",
        app=str(app.ref),
        action=name,
        kind=q.kind,
        name=q.resource_name,
        namespace=q.namespace,
        changed=[
            f"{c.operation}:{c.obj.get('kind')}/{metadata(c.obj).get('name')}" for c in changes
        ],
        principal=call.principal.name,
    )
    return Result(str(app.ref), f"action {name!r} ran on {q.kind} {q.resource_name}")


TAG = "applications"
PATH = "/api/v1/applications/{name}/resource/actions"
ROUTES = (
    Route(
        method="GET",
        path=PATH,
        handler=list_actions,
        operation_id="listResourceActions",
        tag=TAG,
        query=ActionQuery,
        response=Actions,
        summary="The actions one object of the app's resource tree offers",
        errors=(400, 404, 409),
    ),
    Route(
        method="POST",
        path=PATH,
        handler=run_action,
        operation_id="runResourceAction",
        tag=TAG,
        query=ActionQuery,
        body=RunAction,
        response=Result,
        summary="Run a resource action on one object of the app's resource tree",
        errors=(400, 403, 404, 409, 413, 415),
    ),
)
