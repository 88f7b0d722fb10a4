"""App of apps (issue 12): a parent Application whose manifests are child Applications.

The parent renders an AppProject (wave -1) and three children of that project in sync
waves 0, 1 and 2 from the same repository.
What a user bootstrapping with it relies on: the parent tracks the children as its
resources, each wave's child is Healthy before the next child is created, all end Synced
and Healthy, and a child removed from Git is pruned together with its own resources
(through the resources finalizer).
"""

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.manifests import CONTROL, application, as_yaml, config_map
from tests.e2e.pipeline import Changes, Pipeline, resource, synced_healthy
from tests.support.gitrepo import GitRepo
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

CHILDREN = ("child-0", "child-1", "child-2")
FINALIZER = "resources-finalizer.argocd.argoproj.io"


def child(name: str, wave: int, repo_url: str) -> dict[str, Any]:
    """A child Application as a bootstrap repository holds it: automated, with the finalizer."""
    app = application(
        name, repo_url, path=f"children/{name}", namespace=name, automated={"prune": True}
    )
    app["metadata"]["annotations"] = {"argocd.argoproj.io/sync-wave": str(wave)}
    app["metadata"]["finalizers"] = [FINALIZER]
    app["spec"]["project"] = "platform"
    return app


PROJECT = {
    "apiVersion": "argoproj.io/v1alpha1",
    "kind": "AppProject",
    "metadata": {
        "name": "platform",
        "namespace": CONTROL,
        "annotations": {"argocd.argoproj.io/sync-wave": "-1"},
    },
    "spec": {
        "sourceRepos": ["*"],
        "destinations": [{"server": "*", "namespace": "child-*"}],
        "clusterResourceWhitelist": [{"group": "*", "kind": "*"}],
    },
}


def tree(repo_url: str, children: tuple[str, ...]) -> dict[str, str | None]:
    files: dict[str, str | None] = {
        f"children/{name}/config.yaml": as_yaml(config_map(f"{name}-config", wave=str(i)))
        for i, name in enumerate(CHILDREN)
    }
    files["apps/children.yaml"] = as_yaml(
        PROJECT, *(child(name, CHILDREN.index(name), repo_url) for name in children)
    )
    return files


def first_time(changes: Changes, name: str, probe: Callable[[dict[str, Any]], bool]) -> float:
    """When the child Application first matched `probe` in a stored write."""
    for when, _type, obj in changes.of("applications", name):
        if probe(obj):
            return when
    raise AssertionError(f"{name} never matched")


def children_healthy(status: dict[str, Any], names: tuple[str, ...]) -> bool:
    """The parent lists each child as a resource, Synced and Healthy."""
    entries = [resource(status, "Application", name) or {} for name in names]
    return all(
        (e.get("status"), (e.get("health") or {}).get("status")) == ("Synced", "Healthy")
        for e in entries
    )


def healthy(obj: dict[str, Any]) -> bool:
    return ((obj.get("status") or {}).get("health") or {}).get("status") == "Healthy"


async def test_children_sync_in_wave_order_and_a_removed_child_is_pruned(
    pipeline: Pipeline, git_repo: GitRepo, changes: Changes
) -> None:
    first = git_repo.commit(tree(git_repo.url, CHILDREN))
    await pipeline.apply(
        application("root", git_repo.url, path="apps", namespace=CONTROL, automated={"prune": True})
    )

    await pipeline.wait_status(
        "root",
        lambda s: synced_healthy(s, first) and children_healthy(s, CHILDREN),
        what="every child listed Synced + Healthy",
        timeout=120,
    )
    assert resource(await pipeline.status("root"), "AppProject", "platform") is not None
    for name in CHILDREN:
        await pipeline.wait_synced(name, first, timeout=60)
        live = await pipeline.live("v1", "ConfigMap", f"{name}-config", name)
        assert live is not None and live["data"] == {"wave": str(CHILDREN.index(name))}

    for before, after in itertools.pairwise(CHILDREN):
        became_healthy = first_time(changes, before, healthy)
        created = first_time(changes, after, lambda _obj: True)
        assert became_healthy < created, f"{after} was created before {before} was Healthy"

    second = git_repo.commit(tree(git_repo.url, CHILDREN[:2]))

    await pipeline.wait_status(
        "root",
        lambda s: synced_healthy(s, second) and resource(s, "Application", "child-2") is None,
        what="child-2 pruned",
        timeout=120,
    )

    async def gone() -> bool:
        return (
            await pipeline.live("argoproj.io/v1alpha1", "Application", "child-2", CONTROL) is None
            and await pipeline.live("v1", "ConfigMap", "child-2-config", "child-2") is None
        )

    await eventually(gone, timeout=60, what="child-2 and its ConfigMap deleted")
    assert await pipeline.live("v1", "ConfigMap", "child-1-config", "child-1") is not None
