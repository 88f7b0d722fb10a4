"""Authorization: may the caller do this action on this object? (`app.engine.rbac`)

Every handler asks here, against the object it acts on: the app named in the path (its
project as stored, not as the body says), the project, the cluster. `require` answers
403 `permission denied: <resource>, <action>, <object>, sub: <who>` (Argo CD's words),
or, where the caller may not even know the object exists, the same answer as a missing
object (`hidden`). The policy of the object's project (its roles) is read from the
control-plane cluster once per request and project.
"""

from typing import Any

from aiohttp import web

from app import log
from app.api.auth_state import AUTH
from app.api.errors import ApiError, Forbidden
from app.api.routes import Call
from app.cluster.errors import NotFound as ClusterNotFound
from app.engine.rbac.project_roles import ProjectPolicy, project_policy
from app.model import project as project_model
from app.model.errors import SpecError
from app.model.project import AppProject
from app.runtime.runtime import Runtime

logger = log.get("api")

POLICIES = web.RequestKey("rbac_project_policies", dict)
"""Per-request memo of project policies (a long-lived stream drops it to see changes)."""


async def load_project(rt: Runtime, name: str) -> AppProject | None:
    """The AppProject as the cluster holds it; Argo CD's permissive `default` if absent."""
    try:
        doc = await rt.control_plane.get(
            project_model.API_VERSION,
            project_model.KIND,
            name,
            namespace=rt.settings.control_plane.namespace,
        )
    except ClusterNotFound:
        return AppProject.default() if name == "default" else None
    return AppProject.from_dict(doc, source=f"AppProject {name}")


async def _policy(call: Call[Any, Any], name: str) -> ProjectPolicy | None:
    memo: dict[str, ProjectPolicy | None] = call.request.setdefault(POLICIES, {})
    if name in memo:
        return memo[name]
    try:
        project = await load_project(call.rt, name)
    except SpecError:
        project = None
    state = call.request.app[AUTH]
    policy = None
    if project is not None:
        policy = project_policy(project, state.enforcer.config.match_mode)
        state.report(policy)
    memo[name] = policy
    return policy


async def allowed(call: Call[Any, Any], resource: str, action: str, obj: str) -> bool:
    enforcer = call.request.app[AUTH].enforcer
    project = enforcer.project_needed(resource, obj)
    policy = await _policy(call, project) if project else None
    return enforcer.allows(call.principal.caller, resource, action, obj, policy)


def denied(call: Call[Any, Any], resource: str, action: str, obj: str) -> Forbidden:
    return Forbidden(f"permission denied: {resource}, {action}, {obj}, sub: {call.principal.name}")


async def require(
    call: Call[Any, Any], resource: str, action: str, obj: str, *, hidden: ApiError | None = None
) -> None:
    """Go on if allowed; else `hidden` (the object's not-found answer) or 403."""
    if await allowed(call, resource, action, obj):
        return
    logger.info(
        "api.denied",
        principal=call.principal.name,
        resource=resource,
        action=action,
        object=obj,
        answered="not found" if hidden is not None else "forbidden",
    )
    raise hidden or denied(call, resource, action, obj)
