"""Self-heal (issue 4, acceptance 2): drift is reverted, with Argo CD's backoff when it repeats.

A user edits a managed Deployment the way kubectl does (a patch of the live object). With
`selfHeal` the pipeline puts the Git state back; when the drift comes back again and
again, each revert waits longer: 0, timeout, timeout·factor … seconds after the previous
operation finished (SEMANTICS §6; Argo CD's 0, 2, 6 s with its defaults, scaled down
here). The revert times are the moments the local cluster stored the reverting writes;
a revert never comes before its backoff, and how much later it comes is the machine's
load, so it is printed, not asserted (the delays themselves: tests/unit/engine/test_autosync.py).
Without `selfHeal` the drift stays and the app shows OutOfSync.
"""

import itertools
import time
from dataclasses import replace
from typing import Any

import pytest

from app.bus.subjects import EventType
from app.model.resource import KubeObject
from app.runtime.settings import Settings
from tests.e2e.manifests import application, as_yaml, deployment
from tests.e2e.pipeline import Changes, Pipeline, resource
from tests.support.gitrepo import GitRepo
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

NAMESPACE = "shop"
IMAGE = "nginx:1.27"
SELF_HEAL_TIMEOUT = 1.0
SELF_HEAL_FACTOR = 3.0
"""Argo CD's 2 s and factor 3, scaled down: reverts 0, 1 and 3 s after the previous one."""
DRIFT_REFRESH_WINDOW = 0.1
"""The watcher's drift refresh throttle, scaled down with the backoff: at its default (1 s)
a drift right after the sync's own writes waits up to a second to be noticed, which is as
long as the first backoff step here."""


@pytest.fixture
def settings(settings: Settings) -> Settings:
    timing = replace(
        settings.timing,
        self_heal_timeout=SELF_HEAL_TIMEOUT,
        self_heal_factor=SELF_HEAL_FACTOR,
        drift_refresh_window=DRIFT_REFRESH_WINDOW,
    )
    return replace(settings, timing=timing)


def image_of(obj: KubeObject) -> str:
    image: str = obj["spec"]["template"]["spec"]["containers"][0]["image"]
    return image


async def deploy(pipeline: Pipeline, git_repo: GitRepo, *, self_heal: bool) -> str:
    """Commit the Deployment, apply the Application, wait until it is synced; the commit."""
    commit = git_repo.commit({"deploy/web.yaml": as_yaml(deployment("web", IMAGE))})
    automated = {"prune": True, "selfHeal": self_heal}
    await pipeline.apply(
        application("web", git_repo.url, path="deploy", namespace=NAMESPACE, automated=automated)
    )
    await pipeline.wait_synced("web", commit)
    return commit


async def drift(pipeline: Pipeline, image: str) -> float:
    """Edit the live Deployment's image as `kubectl set image` would; when it landed."""
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": image}]}}}}
    await pipeline.rt.control_plane.patch(
        "apps/v1", "Deployment", "web", patch, namespace=NAMESPACE
    )
    return time.monotonic()


async def reverted_after(changes: Changes, since: float) -> float:
    """When the Deployment's image, changed after `since`, was put back to Git's."""

    async def found() -> float | None:
        drifted = False
        for at, kind, obj in changes.of("deployments", "web"):
            if at <= since or kind != "MODIFIED":
                continue
            if image_of(obj) != IMAGE:
                drifted = True
            elif drifted:
                return at
        return None

    at = await eventually(found, timeout=20, what="the drift to be reverted")
    assert at is not None
    return at


async def test_an_edit_to_a_managed_deployment_is_reverted(
    pipeline: Pipeline, git_repo: GitRepo, changes: Changes
) -> None:
    await deploy(pipeline, git_repo, self_heal=True)

    before = time.monotonic()
    await pipeline.kubectl("set", "image", "deployment/web", "main=nginx:edited", "-n", NAMESPACE)

    await reverted_after(changes, before)
    live = await pipeline.live("apps/v1", "Deployment", "web", NAMESPACE)
    assert live is not None and image_of(live) == IMAGE
    status = await pipeline.wait_status(
        "web",
        lambda s: (s.get("sync") or {}).get("status") == "Synced",
        what="Synced after the revert",
    )
    operation = status["operationState"]["operation"]
    assert operation["initiatedBy"]["automated"] is True
    assert operation["sync"]["autoHealAttemptsCount"] == 1


async def test_repeated_drift_is_reverted_with_backoff(
    pipeline: Pipeline, git_repo: GitRepo, changes: Changes
) -> None:
    await deploy(pipeline, git_repo, self_heal=True)

    drifts: list[float] = []
    reverts: list[float] = []
    for attempt in range(3):
        drifts.append(await drift(pipeline, f"nginx:drift-{attempt}"))
        reverts.append(await reverted_after(changes, drifts[-1]))

    first = reverts[0] - drifts[0]
    gaps = [later - earlier for earlier, later in itertools.pairwise(reverts)]
    print(f"self-heal: first revert {first:.2f} s after the drift, then gaps {gaps}")
    backoff = [SELF_HEAL_TIMEOUT, SELF_HEAL_TIMEOUT * SELF_HEAL_FACTOR]
    for gap, wait in zip(gaps, backoff, strict=True):
        assert gap >= wait, (gaps, backoff)

    def healed_three_times(status: dict[str, Any]) -> bool:
        sync = ((status.get("operationState") or {}).get("operation") or {}).get("sync") or {}
        return sync.get("autoHealAttemptsCount") == len(reverts)

    await pipeline.wait_status("web", healed_three_times, what="three self-heal attempts counted")


async def test_without_self_heal_the_drift_stays_and_the_app_is_out_of_sync(
    pipeline: Pipeline, git_repo: GitRepo
) -> None:
    commit = await deploy(pipeline, git_repo, self_heal=False)

    await pipeline.kubectl("set", "image", "deployment/web", "main=nginx:edited", "-n", NAMESPACE)

    def drifted(status: dict[str, Any]) -> bool:
        entry = resource(status, "Deployment", "web") or {}
        return (status.get("sync") or {}).get("status") == "OutOfSync" and entry.get(
            "status"
        ) == "OutOfSync"

    await pipeline.wait_status("web", drifted, what="OutOfSync after the edit")

    already = f"Skipping auto-sync: most recent sync already to [{commit}]"

    async def skipped() -> bool:
        return any(
            kind is EventType.AUTO_SYNC_SKIPPED and data.get("reason") == already
            for kind, data in await pipeline.events("web")
        )

    await eventually(skipped, timeout=10, what="auto-sync skipped for the drift")
    live = await pipeline.live("apps/v1", "Deployment", "web", NAMESPACE)
    assert live is not None and image_of(live) == "nginx:edited"
    assert drifted(await pipeline.status("web"))
