"""Resource actions through the real API on the local cluster: list, run a built-in one,
run a Lua one from argocd-cm, refused parameters and refused callers."""

from typing import Any

from app.runtime.runtime import Runtime
from app.store.tree import TreeNode
from tests.integration.api.server.conftest import (
    READER,
    REF,
    Client,
    application,
    auth,
    seed_app,
)
from tests.support.system_settings import put_settings

ACTIONS = "/api/v1/applications/shop/resource/actions"
WEB = {
    "kind": "Deployment",
    "group": "apps",
    "version": "v1",
    "namespace": "shop",
    "resourceName": "web",
}
LUA = """
discovery.lua: |
  local actions = {}
  actions["tier"] = {["params"] = {{["name"] = "tier"}}}
  return actions
definitions:
- name: tier
  action.lua: |
    obj.metadata.labels = obj.metadata.labels or {}
    local n = table.getn(obj.spec.template.spec.containers)
    obj.metadata.labels["tier"] = actionParams["tier"] .. "-" .. n
    return obj
"""


def deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
        },
    }


async def seed(runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    await runtime.control_plane.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}
    )
    await runtime.control_plane.apply(deployment())
    node: TreeNode = {
        "group": "apps",
        "version": "v1",
        "kind": "Deployment",
        "namespace": "shop",
        "name": "web",
    }
    await runtime.tree.save(REF, [node])


async def live(runtime: Runtime) -> dict[str, Any]:
    return await runtime.control_plane.get("apps/v1", "Deployment", "web", "shop")


async def run(api: Client, action: str, token: str = "", **params: str) -> Any:
    body = {
        "action": action,
        "resourceActionParameters": [{"name": k, "value": v} for k, v in params.items()],
    }
    return await api.post(ACTIONS, params=WEB, json=body, headers=auth(token) if token else auth())


async def test_builtin_actions_are_listed_and_run_on_the_live_object(
    api: Client, runtime: Runtime
) -> None:
    await seed(runtime)
    listed = await api.get(ACTIONS, params=WEB, headers=auth())
    assert listed.status == 200, await listed.text()
    offered = {a["name"]: a["disabled"] for a in (await listed.json())["actions"]}
    assert offered == {"restart": False, "scale": False, "pause": False, "resume": True}

    restarted = await run(api, "restart")
    assert restarted.status == 200, await restarted.text()
    annotations = (await live(runtime))["spec"]["template"]["metadata"]["annotations"]
    assert annotations["kubectl.kubernetes.io/restartedAt"].endswith("Z")

    scaled = await run(api, "scale", replicas="3")
    assert scaled.status == 200, await scaled.text()
    assert (await live(runtime))["spec"]["replicas"] == 3

    refused = await run(api, "scale", replicas="lots")
    assert refused.status == 400
    assert "replicas must be a whole number" in (await refused.json())["message"]
    unknown = await run(api, "explode")
    assert unknown.status == 400
    assert "has no action 'explode'" in (await unknown.json())["message"]
    assert (await live(runtime))["spec"]["replicas"] == 3, "a refused action changes nothing"


async def test_a_lua_action_from_argocd_cm_replaces_the_builtins(
    api: Client, runtime: Runtime
) -> None:
    await seed(runtime)
    await put_settings(runtime, {"resource.customizations.actions.apps_Deployment": LUA})
    listed = await api.get(ACTIONS, params=WEB, headers=auth())
    assert [(a["name"], a["params"]) for a in (await listed.json())["actions"]] == [
        ("tier", [{"name": "tier", "type": "", "default": ""}])
    ]
    ran = await run(api, "tier", tier="gold")
    assert ran.status == 200, await ran.text()
    assert (await live(runtime))["metadata"]["labels"]["tier"] == "gold-1"


async def test_running_an_action_needs_the_action_grant(api: Client, runtime: Runtime) -> None:
    await seed(runtime)
    denied = await run(api, "restart", token=READER)
    assert denied.status == 403
    annotations = (await live(runtime))["spec"]["template"]["metadata"].get("annotations")
    assert not annotations, "a denied action changes nothing"
    outside = await api.get(ACTIONS, params=WEB | {"resourceName": "other"}, headers=auth())
    assert outside.status == 404
