"""`/api/v1/projects/{project}/roles/{role}/token`: project role tokens, as Argo CD issues them.

Issuing and revoking need `projects, update, <project>` (a project the caller may not
get is 404). A token is a signed JWT (`sub: proj:<project>:<role>`, `iat`, `exp`, `jti`)
recorded in the role's `jwtTokens` (and `status.jwtTokensByRole`, as Argo CD keeps
both); removing the record (this route's DELETE, or editing the project) revokes it at
once, since every request with a project token reads its project. Roles themselves are
created and changed by updating the project (`sluice proj role create` does).
"""

import datetime as dt
import uuid
from typing import Any

from app import log
from app.api.auth_shapes import TokenIdQuery, TokenRequest, TokenResponse
from app.api.auth_state import AUTH
from app.api.errors import Conflict, NotFound
from app.api.handlers.projects import current
from app.api.routes import Call, Route
from app.api.shapes import Result
from app.cluster.errors import Conflict as ClusterConflict
from app.engine.rbac import jwt_tokens
from app.engine.rbac import names as n
from app.engine.rbac.project_roles import role_subject

logger = log.get("api")

ATTEMPTS = 5
"""Tries of a token record against concurrent changes of the project."""


def _role(doc: dict[str, Any], project: str, role: str) -> dict[str, Any]:
    for entry in (doc.get("spec") or {}).get("roles") or []:
        if isinstance(entry, dict) and entry.get("name") == role:
            return entry
    raise NotFound(f"role {role} does not exist in project {project}")


def _status_items(doc: dict[str, Any], role: str) -> list[Any]:
    status = doc.setdefault("status", {})
    by_role = status.setdefault("jwtTokensByRole", {})
    items: list[Any] = by_role.setdefault(role, {}).setdefault("items", [])
    return items


async def _record(call: Call[Any, Any], change: Any) -> None:
    """Apply `change(doc)` to the project as stored and write it, retrying on conflicts."""
    project = call.path("project")
    for _ in range(ATTEMPTS):
        doc = await current(call, project, n.UPDATE)
        change(doc)
        try:
            await call.rt.control_plane.replace(doc)
            return
        except ClusterConflict:
            continue
    raise Conflict(f"project {project} kept changing while the token was recorded; retry")


async def create_token(call: Call[None, TokenRequest]) -> TokenResponse:
    project, role = call.path("project"), call.path("role")
    _role(await current(call, project, n.UPDATE), project, role)
    token_id = call.body.id or str(uuid.uuid4())
    token, claims = jwt_tokens.issue(
        role_subject(project, role),
        await call.request.app[AUTH].key(),
        now=dt.datetime.now(dt.UTC),
        expires_in=call.body.expires_in,
        token_id=token_id,
    )
    record = {"iat": claims["iat"], "id": token_id}
    if "exp" in claims:
        record["exp"] = claims["exp"]

    def add(doc: dict[str, Any]) -> None:
        _role(doc, project, role).setdefault("jwtTokens", []).append(record)
        _status_items(doc, role).append(record)

    await _record(call, add)
    logger.info(
        "api.project_token_created",
        project=project,
        role=role,
        token_id=token_id,
        principal=call.principal.name,
    )
    return TokenResponse(token, token_id, claims["iat"], claims.get("exp", 0))


async def delete_token(call: Call[TokenIdQuery, None]) -> Result:
    project, role, issued = call.path("project"), call.path("role"), call.path("iat")
    token_id = call.query.id
    if not issued.isdigit() and not token_id:
        raise NotFound(f"role {role} of project {project} has no token issued at {issued!r}")

    def matches(entry: Any) -> bool:
        if not isinstance(entry, dict):
            return False
        if token_id:
            return bool(entry.get("id") == token_id)
        return str(entry.get("iat")) == issued

    removed: list[Any] = []

    def drop(doc: dict[str, Any]) -> None:
        entry = _role(doc, project, role)
        tokens = entry.get("jwtTokens") or []
        removed[:] = [t for t in tokens if matches(t)]
        if not removed:
            raise NotFound(
                f"role {role} of project {project} has no token "
                + (f"with id {token_id}" if token_id else f"issued at {issued}")
            )
        entry["jwtTokens"] = [t for t in tokens if not matches(t)]
        items = _status_items(doc, role)
        items[:] = [t for t in items if not matches(t)]

    await _record(call, drop)
    logger.info(
        "api.project_token_deleted",
        project=project,
        role=role,
        issued_at=issued,
        token_id=token_id,
        principal=call.principal.name,
    )
    return Result("", f"token of role {role} of project {project} deleted")


TAG = "projects"
BASE = "/api/v1/projects/{project}/roles/{role}/token"
ROUTES = (
    Route(
        method="POST",
        path=BASE,
        handler=create_token,
        operation_id="createProjectToken",
        summary="Issue a token for a project role (recorded in the role's jwtTokens)",
        tag=TAG,
        body=TokenRequest,
        response=TokenResponse,
        status=201,
        errors=(400, 403, 404, 409, 413, 415),
    ),
    Route(
        method="DELETE",
        path=BASE + "/{iat}",
        handler=delete_token,
        operation_id="deleteProjectToken",
        summary="Revoke a project role's token by its iat (or `?id=` its jti)",
        tag=TAG,
        query=TokenIdQuery,
        response=Result,
        errors=(400, 403, 404, 409),
    ),
)
