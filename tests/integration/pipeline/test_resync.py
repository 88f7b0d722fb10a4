"""The periodic resync alone finds a pushed commit: no poller, no webhook, no one asking.

The resync timer fires a `latest` render of the app (straight into the render stage), which
resolves the branch again once the refs cache has expired, so the app's status moves to
the new commit and reports the change as OutOfSync.
"""

from dataclasses import replace
from typing import Any

import pytest

from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from app.runtime.worker import Worker
from tests.support.gitrepo import GitRepo, manifests
from tests.support.manifests import application
from tests.support.waiting import eventually

API = "argoproj.io/v1alpha1"
CONTROL = "sluice"
RESYNC_SECONDS = 1.0


@pytest.fixture
def settings(settings: Settings) -> Settings:
    timing = replace(settings.timing, resync=RESYNC_SECONDS, resync_jitter=0.0)
    return replace(settings, timing=timing)


def _config_map(value: str) -> str:
    return manifests(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "settings"},
            "data": {"value": value},
        }
    )


async def _sync_status(rt: Runtime) -> dict[str, Any]:
    obj = await rt.control_plane.get(API, "Application", "web", CONTROL)
    return dict((obj.get("status") or {}).get("sync") or {})


async def test_a_pushed_commit_is_found_by_the_periodic_resync(
    runtime: Runtime, pipeline_workers: list[Worker], git_repo: GitRepo
) -> None:
    rt = runtime
    first = git_repo.commit({"app/settings.yaml": _config_map("one")})
    await rt.control_plane.create(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": CONTROL}}
    )
    await rt.control_plane.create(application("web", git_repo.url, revision="main"))

    async def at(commit: str) -> dict[str, Any] | None:
        status = await _sync_status(rt)
        return status if status.get("revision") == commit else None

    await eventually(lambda: at(first), timeout=60, what="the first comparison")
    second = git_repo.commit({"app/settings.yaml": _config_map("two")})

    status = await eventually(lambda: at(second), timeout=60, what="a resync at the push")
    assert status is not None
    assert status["status"] == "OutOfSync"
