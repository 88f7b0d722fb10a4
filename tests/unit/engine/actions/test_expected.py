"""Comparing what a library's action tests expect with what the actions returned."""

from app.engine.actions import ActionParam, ImpactedResource, Operation, ResourceAction
from app.engine.actions.expected import difference, discovery_difference, output_difference


def test_lua_numbers_empty_tables_and_timestamps_compare_as_lua_returns_them() -> None:
    assert (
        difference({"replicas": 2, "list": [], "m": {}}, {"replicas": 2.0, "list": {}, "m": []})
        is None
    )
    assert difference({"at": "2000-01-01T00:00:00Z"}, {"at": "2026-12-02T03:04:05Z"}) is None
    assert difference({"at": "2000-01-01T00:00:00Z"}, {"at": "yesterday"}) == (
        "at: expected '2000-01-01T00:00:00Z', got 'yesterday'"
    )


def test_the_first_difference_names_its_path() -> None:
    assert difference({"spec": {"paused": True}}, {"spec": {"paused": 1}}) == (
        "spec.paused: expected True, got 1"
    )
    assert difference({"a": [{"b": 1}]}, {"a": [{"b": 2}]}) == "a[0].b: expected 1, got 2"
    assert difference({"a": 1}, {"a": 1, "b": "x"}) == "b: not expected, got 'x'"
    assert difference({"a": 1, "c": 2}, {"a": 1}) == "c: expected 2, got nothing"


def obj(kind: str, name: str, **spec: object) -> dict[str, object]:
    return {"apiVersion": "batch/v1", "kind": kind, "metadata": {"name": name}, "spec": spec}


def test_several_outputs_are_paired_by_identity() -> None:
    changes = [
        ImpactedResource(Operation.PATCH, obj("CronJob", "c", suspend=False)),
        ImpactedResource(Operation.CREATE, obj("Job", "c-1", parallelism=1)),
    ]
    assert (
        output_difference(
            [obj("Job", "c-1", parallelism=1), obj("CronJob", "c", suspend=False)], changes
        )
        is None
    )
    assert output_difference([obj("Job", "c-1", parallelism=2)], changes) == (
        "create batch/Job /c-1: spec.parallelism: expected 2, got 1"
    )
    assert output_difference([obj("Job", "other")], changes[:1]) is not None


def test_discovery_compares_names_disabled_and_what_the_test_writes() -> None:
    offered = [
        ResourceAction("resume", disabled=True, icon_class="fa"),
        ResourceAction("scale", params=(ActionParam("replicas", type="number"),)),
    ]
    assert (
        discovery_difference(
            [
                {"name": "scale", "params": [{"name": "replicas"}]},
                {"name": "resume", "disabled": True},
            ],
            offered,
        )
        is None
    )
    assert discovery_difference([{"name": "resume"}, {"name": "scale"}], offered) == (
        "resume: expected disabled False, got True"
    )
    assert discovery_difference([{"name": "resume", "disabled": True}], offered) == (
        "expected actions resume, offered resume, scale"
    )
    assert (
        discovery_difference(
            [
                {"name": "resume", "disabled": True},
                {"name": "scale", "params": [{"type": "string"}]},
            ],
            offered,
        )
        == "scale.params[0].type: expected 'string', got 'number'"
    )
