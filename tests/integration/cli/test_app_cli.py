"""`sluice app set|unset|edit|manifests|resources|patch-resource|delete-resource|logs`:
the real CLI against the live API, the app's state as the pipeline would have stored it
and its objects in the local cluster."""

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.api.server import ApiServer
from app.api.settings import ApiSettings
from app.api.tokens import Principal, Token, TokenSet, digest
from app.model.application import Application
from app.model.status import ApplicationStatus, ResourceStatus, SyncStatus
from app.model.sync import SyncStatusCode
from app.repo.sourcehash import source_hash
from app.runtime.runtime import Runtime
from app.store.manifests import ManifestKey, RenderedManifests
from tests.integration.api.server.conftest import REF, application, seed_app
from tests.integration.cli.test_rbac_cli import ADMIN, Done, Sluice

READER = "cli-reader-token-0123456789abcdef"
COMMIT = "d" * 40
CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "cfg", "namespace": "shop"},
    "data": {"a": "1"},
}
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web-0", "namespace": "shop"},
    "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
}


@pytest.fixture
async def sluice(runtime: Runtime, tmp_path: Path) -> AsyncIterator[Sluice]:
    for doc in (
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}}
        for n in ("sluice", "shop")
    ):
        await runtime.control_plane.apply(doc)
    await seed_app(runtime, application("shop"))
    config = await runtime.control_plane.create(CONFIG)
    pod = await runtime.control_plane.create(POD)
    app = await runtime.apps.get(REF)
    assert app is not None and app.spec.source is not None
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "creds"},
        "data": {"pw": "c2VjcmV0"},
    }
    key = ManifestKey(app.spec.source.repo_url, COMMIT, source_hash(app.spec.source))
    await runtime.manifests.put(key, RenderedManifests([CONFIG, secret], "Directory"))
    await runtime.live.replace(REF, [config])
    seq = await runtime.status.begin_comparison(REF)
    status = ApplicationStatus(
        sync=SyncStatus(status=SyncStatusCode.SYNCED, revision=COMMIT),
        resources=[
            ResourceStatus(
                kind="ConfigMap",
                name="cfg",
                version="v1",
                namespace="shop",
                status=SyncStatusCode.SYNCED,
            )
        ],
    )
    await runtime.status.write_comparison(REF, seq, status)
    await runtime.tree.save(
        REF,
        [
            {
                "version": "v1",
                "kind": "ConfigMap",
                "namespace": "shop",
                "name": "cfg",
                "uid": config["metadata"]["uid"],
            },
            {
                "version": "v1",
                "kind": "Pod",
                "namespace": "shop",
                "name": "web-0",
                "uid": pod["metadata"]["uid"],
            },
        ],
    )
    tokens = TokenSet(
        [
            Token(Principal("root"), digest(ADMIN)),
            Token(Principal("reader", read_only=True), digest(READER)),
        ]
    )
    server = ApiServer(runtime, ApiSettings(port=0, tokens=tokens))
    await server.start()
    try:
        yield Sluice(server.url, tmp_path / "config")
    finally:
        await server.stop()


async def _spec(runtime: Runtime) -> dict[str, Any]:
    """The spec as the cluster holds it, mirrored into the registry as the watcher would."""
    doc = await runtime.control_plane.get(
        "argoproj.io/v1alpha1", "Application", "shop", namespace="sluice"
    )
    await runtime.apps.put(Application.from_dict(doc))
    spec: dict[str, Any] = doc["spec"]
    return spec


def ok(done: Done) -> Done:
    assert done.code == 0, done.err
    return done


async def test_set_unset_and_edit_change_the_spec(
    sluice: Sluice, runtime: Runtime, tmp_path: Path
) -> None:
    ok(
        await sluice.admin(
            "app",
            "set",
            "shop",
            "--revision",
            "v2",
            "--sync-policy",
            "automated",
            "--self-heal",
            "--sync-option",
            "CreateNamespace=true",
            "--nameprefix",
            "x-",
            "--kustomize-image",
            "nginx:1.27",
            "--dest-namespace",
            "other",
        )
    )
    spec = await _spec(runtime)
    assert spec["source"]["targetRevision"] == "v2"
    assert spec["source"]["kustomize"] == {"namePrefix": "x-", "images": ["nginx:1.27"]}
    assert spec["syncPolicy"] == {
        "automated": {"selfHeal": True},
        "syncOptions": ["CreateNamespace=true"],
    }
    assert spec["destination"]["namespace"] == "other"
    ok(
        await sluice.admin(
            "app",
            "unset",
            "shop",
            "--nameprefix",
            "--kustomize-image",
            "nginx",
            "--sync-option",
            "CreateNamespace",
        )
    )
    spec = await _spec(runtime)
    assert "kustomize" not in spec["source"] and "syncOptions" not in spec["syncPolicy"]
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text().replace('path: deploy', 'path: other'))\n"
    )
    edited = await sluice.run(
        "app",
        "edit",
        "shop",
        token=ADMIN,
        server=True,
        env={"EDITOR": f"{sys.executable} {editor}"},
    )
    ok(edited)
    assert (await _spec(runtime))["source"]["path"] == "other"
    refused = await sluice.run("app", "set", "shop", "--revision", "v3", token=READER, server=True)
    assert refused.code == 2 and "permission denied: applications, update" in refused.err


async def test_manifests_and_resources(sluice: Sluice) -> None:
    desired = ok(await sluice.admin("app", "manifests", "shop"))
    docs = [d for d in yaml.safe_load_all(desired.out) if d]
    assert [d["kind"] for d in docs] == ["ConfigMap", "Secret"]
    assert "c2VjcmV0" not in desired.out, "Secret values are masked"
    live = ok(await sluice.admin("app", "manifests", "shop", "--source", "live"))
    assert [d["metadata"]["name"] for d in yaml.safe_load_all(live.out) if d] == ["cfg"]
    names = ok(await sluice.admin("app", "resources", "shop", "-o", "name"))
    assert names.out.split() == ["core/ConfigMap/shop/cfg"]


async def test_patch_and_delete_resource_and_logs(sluice: Sluice, runtime: Runtime) -> None:
    where = ("--kind", "ConfigMap", "--resource-name", "cfg", "--namespace", "shop")
    denied = await sluice.run(
        "app", "patch-resource", "shop", *where, "--patch", "{}", token=READER, server=True
    )
    assert denied.code == 2
    assert "permission denied: applications, update//ConfigMap/shop/cfg" in denied.err
    ok(
        await sluice.admin(
            "app", "patch-resource", "shop", *where, "--patch", '{"data": {"a": "9"}}'
        )
    )
    patched = await runtime.control_plane.get("v1", "ConfigMap", "cfg", namespace="shop")
    assert patched["data"] == {"a": "9"}
    outside = await sluice.admin(
        "app",
        "delete-resource",
        "shop",
        "--kind",
        "ConfigMap",
        "--resource-name",
        "other",
        "--namespace",
        "shop",
    )
    assert outside.code == 2 and "not a resource of application" in outside.err
    logs = ok(await sluice.admin("app", "logs", "shop"))
    assert "localcluster:" in logs.out
    ok(await sluice.admin("app", "delete-resource", "shop", *where))
    left = await runtime.control_plane.list("v1", "ConfigMap", namespace="shop")
    assert "cfg" not in [c["metadata"]["name"] for c in left.items]


async def test_actions_list_and_run(sluice: Sluice, runtime: Runtime) -> None:
    deployment = await runtime.control_plane.create(
        {
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
    )
    nodes = list(await runtime.tree.load(REF) or [])
    nodes.append(
        {
            "group": "apps",
            "version": "v1",
            "kind": "Deployment",
            "namespace": "shop",
            "name": "web",
            "uid": deployment["metadata"]["uid"],
        }
    )
    await runtime.tree.save(REF, nodes)
    where = ("--kind", "Deployment", "--group", "apps", "--resource-name", "web")
    where += ("--namespace", "shop")
    listed = ok(await sluice.admin("app", "actions", "list", "shop", *where))
    assert listed.out.split()[:3] == ["NAME", "DISABLED", "PARAMS"]
    assert "scale" in listed.out and "resume" in listed.out
    denied = await sluice.run(
        "app", "actions", "run", "shop", "restart", *where, token=READER, server=True
    )
    assert denied.code == 2
    assert "action/apps/Deployment/restart" in denied.err
    ok(
        await sluice.admin(
            "app", "actions", "run", "shop", "scale", *where, "--param", "replicas=4"
        )
    )
    live = await runtime.control_plane.get("apps/v1", "Deployment", "web", namespace="shop")
    assert live["spec"]["replicas"] == 4
