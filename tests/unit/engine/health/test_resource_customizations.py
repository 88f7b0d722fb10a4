"""Every health_test.yaml case of the packaged resource_customizations tree, one test each."""

from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from app.engine.health.assess import group_kind
from app.engine.health.customizations import (
    HealthCustomizations,
    TreeEntry,
    load_tree,
    packaged_tree,
)
from app.model.health import HealthStatus, HealthStatusCode

ENTRIES = load_tree(packaged_tree())


def read_yaml(entry: TreeEntry, relative: str) -> Any:
    return yaml.safe_load(entry.directory.joinpath(*relative.split("/")).read_text("utf-8"))


def cases() -> Iterator[Any]:
    for entry in ENTRIES:
        for case in read_yaml(entry, "health_test.yaml")["tests"]:
            yield pytest.param(entry, case, id=f"{entry.pattern}:{case['inputPath']}")


@pytest.mark.parametrize(("entry", "case"), list(cases()))
def test_health_test_case(entry: TreeEntry, case: dict[str, Any]) -> None:
    obj = read_yaml(entry, case["inputPath"])
    check = HealthCustomizations.packaged().lookup(group_kind(obj))
    assert check is not None, f"no check covers {group_kind(obj)}"
    assert check.origin == entry.origin
    expected = case["healthStatus"]
    assert check(obj) == HealthStatus(HealthStatusCode(expected["status"]), expected["message"])


def test_sluice_ships_its_three_checks() -> None:
    assert {str(entry.pattern) for entry in ENTRIES} == {
        "cert-manager.io/Certificate",
        "argoproj.io/Rollout",
        "*.toolkit.fluxcd.io/*",
    }


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: str(e.pattern))
def test_every_check_covers_healthy_progressing_degraded_and_uses_all_its_testdata(
    entry: TreeEntry,
) -> None:
    tests = read_yaml(entry, "health_test.yaml")["tests"]
    used = {case["inputPath"] for case in tests}
    present = {f"testdata/{f.name}" for f in entry.directory.joinpath("testdata").iterdir()}
    assert used == present
    assert {case["healthStatus"]["status"] for case in tests} >= {
        "Healthy",
        "Progressing",
        "Degraded",
    }
