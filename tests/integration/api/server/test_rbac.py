"""RBAC against the live API: who, action, object, allowed? with argocd-rbac-cm, local
accounts, a token file with groups, and project roles' JWTs (issued, expired, revoked)."""

import base64
import datetime as dt
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import pytest
from aiohttp.test_utils import TestClient, TestServer

from app.api.auth_state import AUTH
from app.api.server import build_app, routes
from app.api.settings import ApiSettings
from app.api.tokens import Principal, Token, TokenSet, digest
from app.engine.rbac import jwt_tokens
from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import (
    ADMIN,
    NAMESPACE,
    Client,
    application,
    auth,
    project,
    seed_app,
    seed_project,
)
from tests.support.waiting import eventually

DAVE = "dave-token-0123456789abcdef"
POLICY = """
# accounts and roles
p, alice, applications, get, team-a/*, allow
p, alice, applications, sync, team-a/*, allow
p, alice, applications, get, team-a/secret, deny
p, alice, projects, get, default, deny
g, bob, role:team-a-dev
p, role:team-a-dev, applications, get, team-a/*, allow
p, role:team-a-dev, applications, sync, team-a/*, allow
g, org:ops, role:viewer
p, role:viewer, applications, get, team-*/*, allow
p, role:default, projects, get, default, allow
p, alice, repositories, get, team-a/*, allow
"""
ACCOUNTS = {
    "accounts.alice": "apiKey",
    "accounts.bob": "apiKey, login",
    "accounts.carol": "apiKey",
    "accounts.erin": "apiKey",
}
CI_POLICIES = [
    "p, proj:team-a:ci, applications, get, team-a/*, allow",
    "p, proj:team-a:ci, applications, sync, team-a/*, allow",
    "p, proj:team-a:ci, applications, delete, team-b/*, allow",
]


async def write(rt: Runtime, kind: str, name: str, data: dict[str, str]) -> None:
    await rt.control_plane.replace(
        {
            "apiVersion": "v1",
            "kind": kind,
            "metadata": {"name": name, "namespace": NAMESPACE},
            "data": data,
        }
    )


@pytest.fixture
async def rbac(runtime: Runtime) -> AsyncIterator[Client]:
    await runtime.control_plane.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    )
    await write(
        runtime,
        "ConfigMap",
        "argocd-rbac-cm",
        {"policy.csv": POLICY, "policy.default": "role:default"},
    )
    await write(runtime, "ConfigMap", "argocd-cm", ACCOUNTS)
    tokens = TokenSet(
        [
            Token(Principal("admin"), digest(ADMIN)),
            Token(Principal("dave", projects=("nothing",), groups=("org:ops",)), digest(DAVE)),
        ]
    )
    client = TestClient(TestServer(build_app(runtime, ApiSettings(tokens=tokens))))
    await client.start_server()
    await seed_project(runtime, project("team-a", roles=[{"name": "ci", "policies": CI_POLICIES}]))
    await seed_project(runtime, project("team-b"))
    for name, proj in (
        ("web", "team-a"),
        ("docs", "team-a"),
        ("secret", "team-a"),
        ("api", "team-b"),
        ("shop", "default"),
    ):
        await seed_app(runtime, application(name, project=proj))
    yield client
    await client.close()


async def account_token(api: Client, name: str, **body: Any) -> str:
    response = await api.post(f"/api/v1/account/{name}/token", json=body, headers=auth())
    assert response.status == 201, await response.text()
    return str((await response.json())["token"])


async def project_token(api: Client, role: str = "ci", **body: Any) -> dict[str, Any]:
    response = await api.post(
        f"/api/v1/projects/team-a/roles/{role}/token", json=body, headers=auth()
    )
    assert response.status == 201, await response.text()
    answer: dict[str, Any] = await response.json()
    return answer


BODIES = {
    "/api/v1/projects": project("new"),
    "/api/v1/projects/team-a": project("team-a"),
}


async def call(api: Client, token: str, method: str, path: str) -> int:
    body = BODIES.get(path, {}) if method in ("POST", "PUT") else None
    response = await api.request(method, path, json=body, headers=auth(token))
    return response.status


APPS = "/api/v1/applications"
TABLE = [
    # who, method, path, status
    ("alice", "GET", f"{APPS}/web", 200),
    ("alice", "POST", f"{APPS}/web/sync", 202),
    ("alice", "DELETE", f"{APPS}/web", 403),
    ("alice", "GET", f"{APPS}/secret", 404),  # deny line: as if it did not exist
    ("alice", "GET", f"{APPS}/api", 404),
    ("alice", "POST", f"{APPS}/api/sync", 404),
    ("alice", "GET", "/api/v1/projects/default", 200),  # the default role beats a deny
    ("alice", "GET", "/api/v1/projects/team-a", 404),
    ("bob", "GET", f"{APPS}/secret", 200),  # g line: bob holds role:team-a-dev
    ("bob", "POST", f"{APPS}/secret/sync", 202),
    ("bob", "GET", f"{APPS}/shop", 404),
    ("dave", "GET", f"{APPS}/api", 200),  # his group's glob team-*/*
    ("dave", "GET", f"{APPS}/web", 200),
    ("dave", "POST", f"{APPS}/web/sync", 403),
    ("dave", "GET", f"{APPS}/shop", 404),
    ("erin", "GET", "/api/v1/projects/default", 200),  # default role only
    ("erin", "GET", f"{APPS}/shop", 404),
    ("erin", "POST", "/api/v1/projects", 403),
    ("ci", "POST", f"{APPS}/docs/sync", 202),  # project role token
    ("ci", "GET", "/api/v1/projects/team-a", 200),  # every role may get its project
    ("ci", "DELETE", f"{APPS}/web", 403),
    ("ci", "DELETE", f"{APPS}/api", 404),  # its line naming team-b/* is ignored
    ("ci", "GET", f"{APPS}/shop", 404),
    ("ci", "PUT", "/api/v1/projects/team-a", 403),
]


async def test_policy_table(rbac: Client) -> None:
    tokens = {name: await account_token(rbac, name) for name in ("alice", "bob", "erin")}
    tokens["dave"] = DAVE
    tokens["ci"] = (await project_token(rbac))["token"]
    results = [
        (who, method, path, await call(rbac, tokens[who], method, path))
        for who, method, path, _ in TABLE
    ]
    assert results == TABLE


async def _names(api: Client, token: str, path: str) -> list[str]:
    found = await (await api.get(path, headers=auth(token))).json()
    return [item["metadata"]["name"] for item in found["items"]]


async def test_lists_hold_only_what_the_caller_may_get(rbac: Client) -> None:
    alice = await account_token(rbac, "alice")
    ci = (await project_token(rbac))["token"]
    assert await _names(rbac, alice, APPS) == ["docs", "web"]
    assert await _names(rbac, DAVE, APPS) == ["api", "docs", "secret", "web"]
    assert await _names(rbac, ci, APPS) == ["docs", "secret", "web"]
    assert await _names(rbac, ADMIN, APPS) == ["api", "docs", "secret", "shop", "web"]
    assert await _names(rbac, ci, "/api/v1/projects") == ["team-a"]
    assert await _names(rbac, alice, "/api/v1/projects") == []
    assert await _names(rbac, ADMIN, "/api/v1/projects") == ["team-a", "team-b"]


async def test_repositories_follow_their_project_objects(rbac: Client) -> None:
    for body in (
        {"repo": "https://git.example.com/a.git", "project": "team-a"},
        {"repo": "https://git.example.com/b.git"},
    ):
        made = await rbac.post("/api/v1/repositories", json=body, headers=auth())
        assert made.status == 201, await made.text()
    alice = await account_token(rbac, "alice")
    listed = await (await rbac.get("/api/v1/repositories", headers=auth(alice))).json()
    assert [r["repo"] for r in listed["items"]] == ["https://git.example.com/a.git"]
    hidden = quote("https://git.example.com/b.git", safe="")
    assert await call(rbac, alice, "GET", f"/api/v1/repositories/{hidden}") == 404
    assert await call(rbac, alice, "DELETE", f"/api/v1/repositories/{hidden}") == 404
    mine = quote("https://git.example.com/a.git", safe="")
    assert await call(rbac, alice, "DELETE", f"/api/v1/repositories/{mine}") == 403


async def test_denied_and_missing_answer_alike(rbac: Client) -> None:
    alice = await account_token(rbac, "alice")
    denied = await rbac.post(f"{APPS}/api/sync", json={}, headers=auth(alice))
    missing = await rbac.post(f"{APPS}/apx/sync", json={}, headers=auth(alice))
    assert denied.status == missing.status == 404
    assert (await denied.json())["message"].replace("api", "X") == (
        (await missing.json())["message"].replace("apx", "X")
    )


async def test_can_i_answers_as_the_routes_decide(rbac: Client) -> None:
    alice = await account_token(rbac, "alice")

    async def can(action: str, resource: str, obj: str) -> str:
        path = f"/api/v1/account/can-i/{resource}/{quote(action, safe='')}/{quote(obj, safe='')}"
        response = await rbac.get(path, headers=auth(alice))
        return str((await response.json())["value"])

    assert await can("sync", "applications", "team-a/web") == "yes"
    assert await can("delete", "applications", "team-a/web") == "no"
    assert await can("get", "applications", "team-a/secret") == "no"
    assert await can("action/apps/Deployment/restart", "applications", "team-a/web") == "no"


async def _key(rt: Runtime) -> bytes:
    secret = await rt.control_plane.get("v1", "Secret", "argocd-secret", namespace=NAMESPACE)
    return base64.b64decode(secret["data"]["server.secretkey"])


async def test_expired_project_token_is_refused(rbac: Client, runtime: Runtime) -> None:
    past = dt.datetime.now(dt.UTC) - dt.timedelta(hours=2)
    token, claims = jwt_tokens.issue(
        "proj:team-a:ci", await _key(runtime), now=past, expires_in=60, token_id="old"
    )
    doc = await runtime.control_plane.get(
        "argoproj.io/v1alpha1", "AppProject", "team-a", namespace=NAMESPACE
    )
    doc["spec"]["roles"][0]["jwtTokens"] = [
        {"iat": claims["iat"], "exp": claims["exp"], "id": "old"}
    ]
    await runtime.control_plane.replace(doc)
    response = await rbac.get(f"{APPS}/web", headers=auth(token))
    assert response.status == 401
    assert "expired" in (await response.json())["message"]


async def test_revoked_project_token_is_refused(rbac: Client) -> None:
    issued = await project_token(rbac, expiresIn=3600)
    assert await call(rbac, issued["token"], "GET", f"{APPS}/web") == 200
    project = await (await rbac.get("/api/v1/projects/team-a", headers=auth())).json()
    recorded = project["spec"]["roles"][0]["jwtTokens"]
    assert recorded == [{"iat": issued["issuedAt"], "exp": issued["expiresAt"], "id": issued["id"]}]
    gone = await rbac.delete(
        f"/api/v1/projects/team-a/roles/ci/token/{issued['issuedAt']}", headers=auth()
    )
    assert gone.status == 200, await gone.text()
    response = await rbac.get(f"{APPS}/web", headers=auth(issued["token"]))
    assert response.status == 401
    assert "revoked" in (await response.json())["message"]


async def test_forged_token_is_refused(rbac: Client) -> None:
    token, _ = jwt_tokens.issue(
        "admin:apiKey",
        b"not-the-key-but-32-bytes-long-ok",
        now=dt.datetime.now(dt.UTC),
        token_id="x",
    )
    assert await call(rbac, token, "GET", APPS) == 401


async def test_disabled_and_revoked_accounts_are_refused(rbac: Client, runtime: Runtime) -> None:
    carol = await account_token(rbac, "carol")
    assert await call(rbac, carol, "GET", APPS) == 200
    await write(runtime, "ConfigMap", "argocd-cm", {**ACCOUNTS, "accounts.carol.enabled": "false"})

    async def refused() -> bool:
        return await call(rbac, carol, "GET", APPS) == 401

    await eventually(refused, what="carol's token refused once her account is disabled")
    alice = await account_token(rbac, "alice")
    info = await (await rbac.get("/api/v1/account/alice", headers=auth())).json()
    token_id = info["tokens"][-1]["id"]
    gone = await rbac.delete(f"/api/v1/account/alice/token/{token_id}", headers=auth())
    assert gone.status == 200
    assert await call(rbac, alice, "GET", APPS) == 401


async def test_policy_followed_live_and_regex_mode(rbac: Client, runtime: Runtime) -> None:
    erin = await account_token(rbac, "erin")
    assert await call(rbac, erin, "GET", f"{APPS}/api") == 404
    await write(
        runtime,
        "ConfigMap",
        "argocd-rbac-cm",
        {
            "policy.matchMode": "regex",
            "policy.csv": "p, erin, applications, (get|sync), team-(a|b)/(web|api), allow\n",
        },
    )
    state = rbac.server.app[AUTH]

    async def regex_in_force() -> bool:
        return state.enforcer.config.match_mode.value == "regex"

    await eventually(regex_in_force, what="the regex policy in force")
    assert await call(rbac, erin, "GET", f"{APPS}/api") == 200
    assert await call(rbac, erin, "GET", f"{APPS}/secret") == 404
    assert await call(rbac, erin, "GET", f"{APPS}/shop") == 404
    assert await call(rbac, erin, "DELETE", f"{APPS}/web") == 403
    assert await call(rbac, ADMIN, "DELETE", f"{APPS}/shop") == 200  # built-in admin, still glob


async def test_a_bad_policy_is_refused_and_the_last_stays(rbac: Client, runtime: Runtime) -> None:
    alice = await account_token(rbac, "alice")
    await write(runtime, "ConfigMap", "argocd-rbac-cm", {"policy.csv": "p, alice, applications"})
    await write(
        runtime,
        "ConfigMap",
        "argocd-rbac-cm",
        {"policy.csv": POLICY + "p, alice, applications, get, team-b/*, allow\n"},
    )
    assert await eventually(lambda: _status(rbac, alice, f"{APPS}/api", 200))
    assert await call(rbac, alice, "GET", f"{APPS}/web") == 200


async def _status(api: Client, token: str, path: str, wanted: int) -> bool:
    return await call(api, token, "GET", path) == wanted


async def test_userinfo_names_the_caller_and_groups(rbac: Client) -> None:
    response = await rbac.get("/api/v1/session/userinfo", headers=auth(DAVE))
    assert await response.json() == {
        "loggedIn": True,
        "username": "dave",
        "iss": "",
        "groups": ["org:ops"],
        "kind": "token",
    }


OPEN_TO_EVERY_CALLER = {
    "canI",
    "getUserInfo",
    "getSession",
    "openapi",
    "metrics",
    "healthz",
    "readyz",
}
"""Routes any authenticated caller may use: they show nothing about objects."""
LISTS = {
    "listApplications",
    "listProjects",
    "listClusters",
    "listAccounts",
    "listRepositories",
    "listRepoCreds",
}
PARAMS = {
    "name": "web",
    "project": "team-a",
    "role": "ci",
    "iat": "1",
    "id": "x",
    "server": quote("https://kubernetes.default.svc", safe=""),
    "resource": "applications",
    "action": "get",
    "object": "team-a%2Fweb",
    "repo": quote("https://git.example.com/a.git", safe=""),
    "url": quote("https://git.example.com", safe=""),
    "revision": "a" * 40,
}


async def test_every_route_refuses_a_caller_with_no_grant(rbac: Client, runtime: Runtime) -> None:
    """erin holds only the default role (get on project default): no route but the open ones
    answers her with anything, and every list is empty (the stream is left to test_stream)."""
    await write(runtime, "ConfigMap", "argocd-rbac-cm", {"policy.csv": ""})
    state = rbac.server.app[AUTH]
    await eventually(lambda: _no_default(state), what="the empty policy in force")
    erin = await account_token(rbac, "erin")
    for body in ({"repo": "https://git.example.com/a.git", "project": "team-a"},):
        made = await rbac.post("/api/v1/repositories", json=body, headers=auth())
        assert made.status == 201, await made.text()
    made = await rbac.post(
        "/api/v1/repocreds", json={"url": "https://git.example.com"}, headers=auth()
    )
    assert made.status == 201, await made.text()
    for route in routes():
        if route.public or route.streaming or route.operation_id in OPEN_TO_EVERY_CALLER:
            continue
        params = PARAMS | ({"name": "team-a"} if route.tag == "projects" else {})
        path = route.path
        for param in route.path_params:
            path = path.replace("{" + param + "}", params[param])
        body = VALID_BODIES.get(route.operation_id, route.example)
        if body is None and (route.body is not None or route.method in ("POST", "PUT")):
            body = {}
        response = await rbac.request(
            route.method,
            path,
            json=body,
            params=QUERIES.get(route.operation_id),
            headers=auth(erin),
        )
        what = f"{route.operation_id} {route.method} {path}"
        if route.operation_id in LISTS:
            assert response.status == 200, what
            assert (await response.json())["items"] == [], what
        else:
            assert response.status in (403, 404), f"{what}: {response.status}"


VALID_BODIES: dict[str, Any] = {
    "updateApplication": application("web", project="team-a"),
    "rollbackApplication": {"id": 0},
    "patchResource": {"patch": "{}"},
    "runResourceAction": {"action": "restart"},
    "createProject": project("new"),
    "updateProject": project("team-a"),
    "createRepository": {"repo": "https://git.example.com/a.git", "project": "team-a"},
    "updateRepository": {"repo": "https://git.example.com/a.git", "project": "team-a"},
    "createRepoCreds": {"url": "https://git.example.com"},
    "updateRepoCreds": {"url": "https://git.example.com"},
}
QUERIES = {
    "getResource": {"kind": "ConfigMap", "resourceName": "cfg", "namespace": "shop"},
    "getResourceEvents": {"kind": "ConfigMap", "resourceName": "cfg", "namespace": "shop"},
    "patchResource": {"kind": "ConfigMap", "resourceName": "cfg", "namespace": "shop"},
    "deleteResource": {"kind": "ConfigMap", "resourceName": "cfg", "namespace": "shop"},
    "listResourceActions": {"kind": "Deployment", "resourceName": "web", "group": "apps"},
    "runResourceAction": {"kind": "Deployment", "resourceName": "web", "group": "apps"},
}


async def _no_default(state: Any) -> bool:
    return not state.enforcer.config.default_role and not state.enforcer.config.rules


async def test_the_web_ui_session_is_governed_like_the_token(rbac: Client) -> None:
    alice = await account_token(rbac, "alice")
    signed_in = await rbac.post("/api/v1/session", json={"token": alice})
    assert signed_in.status == 200, await signed_in.text()
    assert (await signed_in.json())["name"] == "alice"
    listed = await (await rbac.get(APPS)).json()
    assert [a["metadata"]["name"] for a in listed["items"]] == ["docs", "web"]
    denied = await rbac.delete(f"{APPS}/web")
    assert denied.status == 403
