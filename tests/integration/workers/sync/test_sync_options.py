"""Sync options acted on end to end, through a real sync against the local cluster.

- RespectIgnoreDifferences=true: a field the app's ignoreDifferences hides (replicas an
  autoscaler manages) keeps its live value through a sync; without the option the sync
  resets it to git's.
- System settings (argocd-cm): a kind `resource.exclusions` names is neither applied nor
  pruned (its cluster globs match the server an app addressed by name resolves to); a
  configured Lua health check decides whether a wave succeeded.
- Validate=false (app or resource): an unknown field no longer fails the dry run (the
  server drops it); by default the server refuses it, as kubectl's validation does.
"""

import pytest

from app.cluster import NotFound
from app.engine.tracking import TrackingMethod, set_tracking
from app.model.sync import OperationPhase
from tests.integration.workers.sync.conftest import (
    CONTROL,
    DESTINATION,
    WAVE,
    Shop,
    config_map,
    deployment,
    obj,
)
from tests.support.system_settings import put_settings

RESPECT = "RespectIgnoreDifferences=true"
IGNORE_REPLICAS = {"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}


@pytest.mark.parametrize(
    ("options", "replicas"),
    [
        pytest.param([], 1, id="without-option-git-value-restored"),
        pytest.param([RESPECT], 3, id="respect-ignore-differences-keeps-live-value"),
    ],
)
async def test_ignored_replicas_changed_live_survive_a_sync_only_with_the_option(
    shop: Shop, sync_workers: None, options: list[str], replicas: int
) -> None:
    shop.policy = {"syncOptions": options}
    shop.ignore_differences = [IGNORE_REPLICAS]
    await shop.deploy(deployment("web", image="nginx:1.27"))
    await shop.sync()
    scaled = await shop.rt.control_plane.patch(
        "apps/v1", "Deployment", "web", {"spec": {"replicas": 3}}, namespace=DESTINATION
    )
    await shop.rt.live.put(shop.ref, scaled)
    commit = await shop.deploy(deployment("web", image="nginx:1.28"))
    state = await shop.sync(revision=commit)
    assert state.phase is OperationPhase.SUCCEEDED, state.message
    live = await shop.live("Deployment", "web", "apps/v1")
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28"
    assert live["spec"]["replicas"] == replicas


@pytest.mark.parametrize(
    ("destination_name", "exclusions"),
    [
        pytest.param("", "- kinds: [Secret]", id="any-cluster"),
        pytest.param(
            "in-cluster",
            "- kinds: [Secret]\n  clusters: [https://kubernetes.default.*]",
            id="app-by-name-matched-by-its-server",
        ),
    ],
)
async def test_a_kind_the_settings_exclude_is_neither_applied_nor_pruned(
    shop: Shop, sync_workers: None, destination_name: str, exclusions: str
) -> None:
    shop.destination_name = destination_name
    await put_settings(shop.rt, {"resource.exclusions": exclusions}, CONTROL)
    old_secret = set_tracking(
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "old", "namespace": DESTINATION},
        },
        app=shop.name,
        method=TrackingMethod.ANNOTATION,
        default_namespace=DESTINATION,
    )
    await shop.deploy(config_map("cfg"), obj("Secret", "new"))
    await shop.rt.control_plane.create(old_secret)
    await shop.rt.live.replace(shop.ref, [old_secret])
    state = await shop.sync()
    assert state.phase is OperationPhase.SUCCEEDED, state.message
    assert state.sync_result is not None
    assert [r.name for r in state.sync_result.resources] == ["cfg"]
    assert (await shop.live("Secret", "old"))["metadata"]["name"] == "old"
    with pytest.raises(NotFound):
        await shop.live("Secret", "new")


async def test_a_configured_health_check_decides_a_wave(shop: Shop, sync_workers: None) -> None:
    lua = 'return {status = "Degraded", message = "refused by policy"}'
    await put_settings(shop.rt, {"resource.customizations.health.ConfigMap": lua}, CONTROL)
    await shop.deploy(config_map("first"), config_map("second", {WAVE: "1"}))
    state = await shop.sync()
    assert state.phase is OperationPhase.FAILED
    assert "refused by policy" in state.message, state.message
    with pytest.raises(NotFound):
        await shop.live("ConfigMap", "second")


@pytest.mark.parametrize(
    ("app_options", "resource_options", "created"),
    [
        pytest.param([], "", False, id="validated-by-default"),
        pytest.param(["Validate=false"], "", True, id="app-validate-false"),
        pytest.param([], "Validate=false", True, id="resource-validate-false"),
    ],
)
async def test_an_unknown_field_fails_the_dry_run_unless_validate_is_false(
    shop: Shop,
    sync_workers: None,
    app_options: list[str],
    resource_options: str,
    created: bool,
) -> None:
    shop.policy = {"syncOptions": app_options}
    options = {"argocd.argoproj.io/sync-options": resource_options} if resource_options else {}
    await shop.deploy({**config_map("cfg", options, mode="fast"), "colour": "blue"})
    state = await shop.sync()
    if not created:
        assert (state.phase, state.message) == (
            OperationPhase.FAILED,
            "one or more objects failed to apply (dry run)",
        )
        assert state.sync_result is not None
        (result,) = state.sync_result.resources
        assert 'strict decoding error: unknown field "colour"' in result.message
        with pytest.raises(NotFound):
            await shop.live("ConfigMap", "cfg")
        return
    assert state.phase is OperationPhase.SUCCEEDED, state.message
    live = await shop.live("ConfigMap", "cfg")
    assert live["data"] == {"mode": "fast"} and "colour" not in live
