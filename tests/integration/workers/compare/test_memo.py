"""A comparison of unchanged inputs is reused; any input that changes is compared again."""

import copy
import json
from typing import Any

import pytest

from app.engine.appstatus import ComparisonSummary
from app.engine.compare import CompareSettings
from app.engine.health import AppHealth
from app.model.application import Application
from app.model.health import HealthStatusCode
from app.model.identity import AppRef
from app.model.project import AppProject
from app.model.resource import ResourceKey
from app.model.sync import RefreshLevel, SyncStatusCode
from app.repo.sourcehash import source_hash
from app.runtime.runtime import Runtime
from app.store import keys
from app.store.livecache import StoredLive
from tests.integration.workers.compare.conftest import (
    COMMIT,
    COMMIT2,
    apply_live,
    compare_now,
    config_map,
    register,
    seed_manifests,
    stored,
)
from workers.compare.memo import ComparisonMemo, Fingerprint, Remembered, fingerprint
from workers.compare.worker import CompareWorker

APP = Application.from_dict(
    {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "shop", "namespace": "sluice"},
        "spec": {
            "source": {"repoURL": "https://git.example/shop.git", "path": "deploy"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "shop"},
        },
    }
)
LIVE: list[dict[str, Any]] = [
    {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "web", "namespace": "shop", "uid": "u1", "resourceVersion": "7"},
    }
]
SETTINGS = CompareSettings()
SUMMARY = ComparisonSummary(SyncStatusCode.SYNCED, (), AppHealth(HealthStatusCode.HEALTHY), (), ())
REF = AppRef("sluice", "shop")


def _stored(objects: list[dict[str, Any]]) -> bytes:
    """The digest of `objects` as the live cache stores them."""
    fields = {str(ResourceKey.of(o)).encode(): json.dumps(o).encode() for o in objects}
    return StoredLive(fields, warm=True).digest()


def _changed_live(**meta: str) -> list[dict[str, Any]]:
    live = copy.deepcopy(LIVE)
    live[0]["metadata"].update(meta)
    return live


def _app_with(**spec: Any) -> Application:
    doc = APP.to_dict()
    doc["spec"].update(spec)
    return Application.from_dict(doc)


@pytest.mark.parametrize(
    "changed",
    [
        pytest.param({"live": _changed_live(resourceVersion="8")}, id="live-object-changed"),
        pytest.param({"live": _changed_live(uid="u2")}, id="live-object-recreated"),
        pytest.param({"live": [*LIVE, *_changed_live(name="db")]}, id="live-object-added"),
        pytest.param({"live": []}, id="live-object-deleted"),
        pytest.param({"revisions": [COMMIT2]}, id="new-commit"),
        pytest.param(
            {"app": _app_with(ignoreDifferences=[{"kind": "ConfigMap", "jsonPointers": ["/x"]}])},
            id="app-spec-changed",
        ),
        pytest.param(
            {"project": AppProject.from_dict({**AppProject.default().to_dict(), "spec": {}})},
            id="project-changed",
        ),
        pytest.param({"settings": CompareSettings()}, id="settings-rebuilt"),
    ],
)
def test_any_changed_input_misses(changed: dict[str, Any]) -> None:
    memo = ComparisonMemo()
    inputs: dict[str, Any] = {
        "app": APP,
        "revisions": [COMMIT],
        "live": LIVE,
        "project": AppProject.default(),
        "settings": SETTINGS,
    }
    memo.put(REF, _key(inputs), Remembered(SUMMARY, ("Directory",)))
    assert memo.get(REF, _key(inputs)) == Remembered(SUMMARY, ("Directory",))
    assert memo.get(REF, _key({**inputs, **changed})) is None


def _key(inputs: dict[str, Any]) -> Fingerprint:
    return fingerprint(**{**inputs, "live": _stored(inputs["live"])})


def test_live_objects_are_told_apart_by_what_is_stored_not_by_their_version() -> None:
    project = AppProject.default()
    key = fingerprint(APP, [COMMIT], _stored(LIVE), project, SETTINGS)
    relabelled = copy.deepcopy(LIVE)
    relabelled[0]["metadata"]["labels"] = {"tier": "web"}
    assert not key.same(fingerprint(APP, [COMMIT], _stored(relabelled), project, SETTINGS))
    both = [*LIVE, *_changed_live(name="db")]
    in_order = fingerprint(APP, [COMMIT], _stored(both), project, SETTINGS)
    reversed_order = fingerprint(APP, [COMMIT], _stored(both[::-1]), project, SETTINGS)
    assert in_order.same(reversed_order)


def test_the_memo_keeps_the_most_recently_compared_apps() -> None:
    memo = ComparisonMemo(capacity=2)
    key = fingerprint(APP, [COMMIT], _stored(LIVE), AppProject.default(), SETTINGS)
    refs = [AppRef("sluice", f"app-{i}") for i in range(3)]
    for ref in refs:
        memo.put(ref, key, Remembered(SUMMARY, ()))
    assert memo.get(refs[0], key) is None
    assert memo.get(refs[2], key) is not None


async def test_a_resync_of_an_unchanged_app_does_not_read_its_render_again_but_force_does(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web")])
    await compare_now(worker, app)
    assert app.spec.source is not None
    await runtime.redis.delete(
        keys.manifests(app.spec.source.repo_url, COMMIT, source_hash(app.spec.source))
    )

    await compare_now(worker, app)
    assert (await stored(runtime, app)).status.sync.status is SyncStatusCode.SYNCED

    await compare_now(worker, app, RefreshLevel.FORCE)
    status = (await stored(runtime, app)).status
    assert status.sync.status is SyncStatusCode.UNKNOWN
    assert "not in the manifest cache" in status.conditions[0].message
