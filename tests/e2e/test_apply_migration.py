"""ClientSideApplyMigration (issue 12): objects Argo CD applied are taken over cleanly.

Before Sluice, Argo CD synced the app: with server-side apply its manager
`argocd-controller` owns the ConfigMap's fields (no last-applied annotation), or with
client-side apply it left kubectl's last-applied annotation. Git then drops a key and
changes another; after Sluice's sync the dropped key is gone from the live object, with
Sluice's default client-side apply and with ServerSideApply=true alike, and Sluice's own
manager owns what Argo CD owned.
"""

from typing import Any

import pytest

from app.cluster import ApplyMode, last_applied
from tests.e2e.manifests import application, as_yaml, config_map
from tests.e2e.pipeline import Pipeline
from tests.support.fixtures_cluster import Kubectl
from tests.support.gitrepo import GitRepo

pytestmark = pytest.mark.kubectl

TRACKING = "argocd.argoproj.io/tracking-id"


def as_argo_cd_left_it(app: str, namespace: str) -> dict[str, Any]:
    """The ConfigMap as Argo CD applied it: tracked by `app`, two keys."""
    obj = config_map("settings", colour="blue", size="large")
    obj["metadata"]["namespace"] = namespace
    obj["metadata"]["annotations"] = {TRACKING: f"{app}:/ConfigMap:{namespace}/settings"}
    return obj


def managers(obj: dict[str, Any]) -> set[tuple[str, str]]:
    return {(e["manager"], e["operation"]) for e in obj["metadata"].get("managedFields") or []}


@pytest.mark.parametrize(
    ("argo_cd_applied", "sync_options"),
    [
        pytest.param("server-side", [], id="argo-ssa-then-sluice-csa"),
        pytest.param("server-side", ["ServerSideApply=true"], id="argo-ssa-then-sluice-ssa"),
        pytest.param("client-side", ["ServerSideApply=true"], id="argo-csa-then-sluice-ssa"),
    ],
)
async def test_a_key_removed_from_git_is_removed_after_the_move(
    pipeline: Pipeline,
    git_repo: GitRepo,
    kubectl: Kubectl,
    argo_cd_applied: str,
    sync_options: list[str],
) -> None:
    namespace = "moved"
    await kubectl("create", "namespace", namespace)
    before = as_argo_cd_left_it("web", namespace)
    cluster = pipeline.rt.control_plane
    if argo_cd_applied == "server-side":
        await cluster.apply(before, mode=ApplyMode.SERVER_SIDE, field_manager="argocd-controller")
    else:
        await cluster.create(last_applied.annotate(before), field_manager="argocd-controller")

    commit = git_repo.commit(
        {"deploy/settings.yaml": as_yaml(config_map("settings", colour="red"))}
    )
    app = application("web", git_repo.url, path="deploy", namespace=namespace, automated={})
    app["spec"]["syncPolicy"]["syncOptions"] += sync_options
    await pipeline.apply(app)
    await pipeline.wait_synced("web", commit, timeout=60)

    live = await pipeline.live("v1", "ConfigMap", "settings", namespace)
    assert live is not None
    assert live["data"] == {"colour": "red"}, "the key Git dropped is gone"
    if sync_options:
        assert ("sluice", "Apply") in managers(live)
        assert not {m for m, _ in managers(live)} & {"argocd-controller"}
