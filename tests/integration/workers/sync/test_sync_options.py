"""Sync options acted on end to end, through a real sync against the local cluster.

- RespectIgnoreDifferences=true: a field the app's ignoreDifferences hides (replicas an
  autoscaler manages) keeps its live value through a sync; without the option the sync
  resets it to git's.
"""

import pytest

from app.model.sync import OperationPhase
from tests.integration.workers.sync.conftest import DESTINATION, Shop, deployment

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
