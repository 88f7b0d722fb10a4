"""Per-resource reads of the web UI: manifests and diffs of the last comparison, the live
manifest and the Kubernetes events of any object of the app's tree, a project's windows."""

from typing import Any

from app.engine.redact import MASK
from app.runtime.runtime import Runtime
from app.store.tree import TreeNode
from tests.integration.api.server.conftest import (
    REF,
    Client,
    application,
    auth,
    project,
    seed_app,
    seed_comparison,
    seed_project,
)
from tests.support.gitrepo import GitRepo


async def test_managed_resources_give_both_manifests_and_both_diff_layouts(
    api: Client, runtime: Runtime
) -> None:
    await seed_app(runtime, application("shop"))
    await seed_comparison(runtime)
    response = await api.get("/api/v1/applications/shop/managed-resources", headers=auth())
    assert response.status == 200, await response.text()
    items = {item["name"]: item for item in (await response.json())["items"]}
    cfg = items["cfg"]
    assert cfg["status"] == "OutOfSync"
    assert "a: '1'" in cfg["liveState"] and "a: '2'" in cfg["targetState"]
    assert "-  a: '1'" in cfg["diff"] and "+  a: '2'" in cfg["diff"]
    changed = [row for row in cfg["sideBySide"] if row["tag"] == "replace"]
    assert changed == [
        {"tag": "replace", "leftLine": 3, "left": "  a: '1'", "rightLine": 3, "right": "  a: '2'"}
    ]
    assert items["same"]["diff"] == "" and items["same"]["sideBySide"] == []
    assert items["orphan"]["requiresPruning"] and items["orphan"]["targetState"] == ""
    creds = items["creds"]
    for text in (creds["liveState"], creds["targetState"], creds["diff"]):
        assert "b2xk" not in text and "bmV3" not in text, "Secret values are masked"
    assert MASK in creds["liveState"]


async def _tree(runtime: Runtime, *nodes: TreeNode) -> None:
    await runtime.tree.save(REF, list(nodes))


def _pod(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "shop"},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
    }


async def test_a_tree_object_is_read_live_and_others_are_not_found(
    api: Client, runtime: Runtime
) -> None:
    await seed_app(runtime, application("shop"))
    await runtime.control_plane.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}
    )
    await runtime.control_plane.apply(_pod("web-1"))
    await runtime.control_plane.apply(_pod("not-ours"))
    pod: TreeNode = {"version": "v1", "kind": "Pod", "namespace": "shop", "name": "web-1"}
    await _tree(runtime, pod | {"health": {"status": "Healthy", "message": "running"}})
    path = "/api/v1/applications/shop/resource?kind=Pod&namespace=shop&version=v1&resourceName="
    found = await api.get(path + "web-1", headers=auth())
    assert found.status == 200, await found.text()
    body = await found.json()
    assert "image: nginx:1.27" in body["manifest"]
    assert body["health"] == "Healthy" and body["healthMessage"] == "running"
    other = await api.get(path + "not-ours", headers=auth())
    assert other.status == 404
    assert "not in the resource tree of application sluice/shop" in (await other.json())["message"]


async def test_resource_events_are_the_objects_own(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    await runtime.control_plane.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}
    )
    for name, target, reason in (("e1", "web-1", "Pulled"), ("e2", "other", "Killing")):
        await runtime.control_plane.apply(
            {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": name, "namespace": "shop"},
                "involvedObject": {"kind": "Pod", "name": target, "namespace": "shop"},
                "type": "Normal",
                "reason": reason,
                "message": f"<b>{reason}</b> image",
                "count": 2,
                "lastTimestamp": "2026-01-01T00:00:00Z",
                "source": {"component": "kubelet"},
            }
        )
    await _tree(runtime, {"version": "v1", "kind": "Pod", "namespace": "shop", "name": "web-1"})
    response = await api.get(
        "/api/v1/applications/shop/resource/events?kind=Pod&namespace=shop&resourceName=web-1",
        headers=auth(),
    )
    assert response.status == 200, await response.text()
    items = (await response.json())["items"]
    assert [(e["reason"], e["message"], e["count"], e["source"]) for e in items] == [
        ("Pulled", "<b>Pulled</b> image", 2, "kubelet")
    ]


async def test_project_windows_say_which_are_open_now(api: Client, runtime: Runtime) -> None:
    windows = [
        {"kind": "allow", "schedule": "* * * * *", "duration": "1h", "applications": ["*"]},
        {"kind": "deny", "schedule": "0 0 1 1 *", "duration": "1m", "namespaces": ["prod"]},
        {"kind": "deny", "schedule": "* * * * *", "duration": "1h", "timeZone": "Mars/Base"},
    ]
    await seed_project(runtime, project("team-a", syncWindows=windows))
    response = await api.get("/api/v1/projects/team-a/syncwindows", headers=auth())
    assert response.status == 200, await response.text()
    shown = (await response.json())["windows"]
    assert [(w["kind"], w["active"]) for w in shown] == [
        ("allow", True),
        ("deny", False),
        ("deny", False),
    ]
    assert shown[0]["changesAt"].endswith("Z") and shown[1]["namespaces"] == ["prod"]
    assert "timeZone" in shown[2]["problem"] and "Mars/Base" in shown[2]["problem"]
    missing = await api.get("/api/v1/projects/nobody/syncwindows", headers=auth())
    assert missing.status == 404


async def test_revision_metadata_reads_the_commit(
    api: Client, runtime: Runtime, git_repo: GitRepo
) -> None:
    commit = git_repo.commit({"deploy/cm.yaml": "kind: ConfigMap\n"}, message="Add <cm>\n\nwhy")
    doc = application("shop")
    doc["spec"]["source"]["repoURL"] = git_repo.url
    await seed_app(runtime, doc)
    path = f"/api/v1/applications/shop/revisions/{commit}/metadata"
    response = await api.get(path, headers=auth())
    assert response.status == 200, await response.text()
    body = await response.json()
    assert body["message"] == "Add <cm>\n\nwhy" and "<" in body["author"]
    assert body["date"][:4].isdigit()
    short = await api.get("/api/v1/applications/shop/revisions/abc123/metadata", headers=auth())
    assert short.status == 400 and "full commit SHA" in (await short.json())["message"]
    other = await api.get(path + "?sourceIndex=3", headers=auth())
    assert other.status == 400
