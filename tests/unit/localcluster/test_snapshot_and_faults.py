"""Snapshots round-trip the store or refuse the file; fault rates stay within bounds."""

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from app.localcluster import snapshot
from app.localcluster.faults import ERROR, SLOW, THROTTLE, TIMEOUT, Faults
from app.localcluster.levers import Levers, levers_of
from tests.unit.localcluster.conftest import Api, configmap
from tests.unit.localcluster.test_crds import crd


def test_snapshot_round_trip_keeps_objects_types_and_revision(api: Api, tmp_path: Path) -> None:
    api.create("customresourcedefinitions.apiextensions.k8s.io", crd(), namespace="")
    api.create("configmaps", configmap("a", {"k": "v"}))
    path = tmp_path / "snap.json"
    snapshot.write(path, snapshot.capture(api.store))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    fresh = Api()
    revision = snapshot.load(path, fresh.store, fresh.registry)
    assert revision == api.store.revision == fresh.store.revision
    cm = api.type("configmaps").group_resource
    assert fresh.store.get(cm, "default", "a") == api.store.get(cm, "default", "a")
    assert fresh.registry.lookup("example.com", "v1", "widgets") is not None
    assert fresh.events.since(cm, revision - 1) is None


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        pytest.param("not json", "cannot be read as JSON", id="not-json"),
        pytest.param({"format": "other"}, "is not a local cluster snapshot", id="wrong-format"),
        pytest.param(
            {
                "format": snapshot.FORMAT,
                "resourceVersion": 3,
                "objects": [{"group": "", "resource": "configmaps", "object": {"metadata": {}}}],
            },
            "objects[0] needs group, resource and an object with metadata.name",
            id="object-without-name",
        ),
        pytest.param(
            {
                "format": snapshot.FORMAT,
                "resourceVersion": 3,
                "objects": [
                    {
                        "group": "example.com",
                        "resource": "widgets",
                        "object": {"metadata": {"name": "w", "resourceVersion": "2"}},
                    }
                ],
            },
            "holds widgets.example.com 'w', a type this cluster does not serve",
            id="unknown-type",
        ),
    ],
)
def test_bad_snapshots_are_refused_and_load_nothing(
    tmp_path: Path, content: Any, problem: str
) -> None:
    path = tmp_path / "snap.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    fresh = Api()
    with pytest.raises(snapshot.SnapshotError) as e:
        snapshot.load(path, fresh.store, fresh.registry)
    assert problem in str(e.value) and str(path) in str(e.value)
    assert fresh.store.resources() == [] and fresh.store.revision == 0


def test_fault_rates_pick_in_proportion() -> None:
    faults = Faults(seed=7)
    faults.configure(error_rate=0.2, throttle_rate=0.3, timeout_rate=0.1, slow_rate=0.15)
    picks = [faults.pick() for _ in range(10_000)]
    kinds = (ERROR, THROTTLE, TIMEOUT, SLOW, None)
    shares = {kind: picks.count(kind) / len(picks) for kind in kinds}
    assert shares[SLOW] == pytest.approx(0.15, abs=0.02)
    assert shares[ERROR] == pytest.approx(0.2, abs=0.02)
    assert shares[THROTTLE] == pytest.approx(0.3, abs=0.02)
    assert shares[TIMEOUT] == pytest.approx(0.1, abs=0.02)
    faults.clear()
    assert {faults.pick() for _ in range(100)} == {None}


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"error_rate": 1.5}, "error_rate must be a number between 0 and 1"),
        ({"error_rate": 0.6, "throttle_rate": 0.6}, "add up to 1.2"),
        ({"timeout_seconds": -1}, "timeout_seconds must be a non-negative number"),
        ({"slow_rate": 0.5, "error_rate": 0.6}, "add up to 1.1"),
        ({"slow_seconds": -2}, "slow_seconds must be a non-negative number"),
    ],
)
def test_out_of_range_fault_rates_are_refused_and_keep_the_old_ones(
    changes: dict[str, float], problem: str
) -> None:
    faults = Faults()
    faults.configure(error_rate=0.1)
    with pytest.raises(ValueError, match=problem):
        faults.configure(**changes)
    assert faults.rates.error_rate == 0.1


@pytest.mark.parametrize(
    ("annotations", "template", "levers"),
    [
        pytest.param({}, {}, Levers(), id="none"),
        pytest.param(
            {"localcluster.sluice.dev/fail": "true"}, {}, Levers(fail=True), id="on-object"
        ),
        pytest.param(
            {},
            {"localcluster.sluice.dev/never-ready": "true"},
            Levers(never_ready=True),
            id="on-template",
        ),
        pytest.param(
            {"localcluster.sluice.dev/delay-seconds": "2.5"}, {}, Levers(delay=2.5), id="delay"
        ),
        pytest.param({"localcluster.sluice.dev/fail": "false"}, {}, Levers(), id="explicitly-off"),
    ],
)
def test_levers_are_read_from_object_and_template(
    annotations: dict[str, str], template: dict[str, str], levers: Levers
) -> None:
    obj = {
        "metadata": {"annotations": annotations},
        "spec": {"template": {"metadata": {"annotations": template}}},
    }
    assert levers_of(obj) == levers
