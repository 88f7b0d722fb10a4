"""Each chaos invariant holds on a clean trial and names the app on the fault it exists for."""

from dataclasses import replace
from typing import Any

from tests.chaos.invariants import (
    Observed,
    check,
    contains,
    hooks_created_twice,
    not_converged,
    operations_restarted,
    pruned_while_declared,
    running_when_healthy,
    synced_but_differs,
)

REV = "a" * 40
OLD = "b" * 40
CONFIG = ("shop", "ConfigMap", "config")
WEB = ("shop", "Deployment", "web")


def app(
    sync: str = "Synced", revision: str = REV, health: str = "Healthy", phase: str = "Succeeded"
) -> dict[str, Any]:
    return {
        "status": {
            "sync": {"status": sync, "revision": revision},
            "health": {"status": health},
            "operationState": {"phase": phase, "startedAt": "t1"},
        }
    }


def config(gen: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "config"},
        "data": {"gen": gen},
    }


def deployment(available: int) -> dict[str, Any]:
    return {
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 1},
        "status": {"availableReplicas": available},
    }


def operation(started: str, phase: str, resources: int, revision: str = REV) -> dict[str, Any]:
    return {
        "operation": {"sync": {"revision": revision}},
        "phase": phase,
        "startedAt": started,
        "syncResult": {"revision": revision, "resources": [{"kind": "ConfigMap"}] * resources},
    }


CLEAN = Observed(
    revision=REV,
    apps={"shop": app()},
    declared={"shop": {CONFIG: config("2"), WEB: {"kind": "Deployment", "spec": {"replicas": 1}}}},
    live={CONFIG: {**config("2"), "metadata": {"name": "config", "uid": "u"}}, WEB: deployment(1)},
    hook_creations=[("shop", "Job", "presync-g2"), ("shop", "Job", "postsync-g2")],
    deletions=[("shop", "ConfigMap", "extra-g1"), ("shop", "Job", "presync-g2")],
    operations={
        "shop": [
            operation("t1", "Running", 0),
            operation("t1", "Running", 2),
            operation("t1", "Succeeded", 3),
        ]
    },
)


def test_a_clean_trial_violates_nothing() -> None:
    assert check(CLEAN) == {name: [] for name in check(CLEAN)}


def test_an_app_short_of_the_newest_revision_has_not_converged() -> None:
    seen = replace(CLEAN, apps={"shop": app(revision=OLD), "cart": app(phase="Running")})
    assert not_converged(seen) == ["cart: operation Running", f"shop: Synced at {OLD[:7]}, Healthy"]


def test_a_hook_job_created_twice_is_named() -> None:
    seen = replace(CLEAN, hook_creations=[*CLEAN.hook_creations, ("shop", "Job", "presync-g2")])
    assert hooks_created_twice(seen) == ["shop: Job presync-g2 created 2 times"]


def test_a_second_operation_for_the_same_revision_is_a_restart() -> None:
    states = [*CLEAN.operations["shop"], operation("t2", "Running", 0)]
    assert operations_restarted(replace(CLEAN, operations={"shop": states})) == [
        f"shop: 2 operations for {REV[:7]}"
    ]


def test_results_that_go_back_to_none_are_a_restart() -> None:
    states = [operation("t1", "Running", 2), operation("t1", "Running", 0)]
    assert operations_restarted(replace(CLEAN, operations={"shop": states})) == [
        "shop: the operation's results went back to none ()"
    ]


def test_a_retry_may_start_the_results_over() -> None:
    waiting = {**operation("t1", "Running", 2), "retryCount": 1, "message": "Retrying attempt #1"}
    started = {**operation("t1", "Running", 0), "retryCount": 1}
    done = {**operation("t1", "Succeeded", 3), "retryCount": 1}
    states = [operation("t1", "Running", 2), waiting, started, done]
    assert operations_restarted(replace(CLEAN, operations={"shop": states})) == []


def test_results_lost_within_a_retry_are_a_restart() -> None:
    states = [
        {**operation("t1", "Running", 0), "retryCount": 1},
        {**operation("t1", "Running", 2), "retryCount": 1},
        {**operation("t1", "Running", 0), "retryCount": 1, "message": "lost"},
    ]
    assert operations_restarted(replace(CLEAN, operations={"shop": states})) == [
        "shop: the operation's results went back to none (lost)"
    ]


def test_the_previous_revisions_operation_does_not_count() -> None:
    states = [operation("t0", "Succeeded", 3, revision=OLD), *CLEAN.operations["shop"]]
    assert operations_restarted(replace(CLEAN, operations={"shop": states})) == []


def test_deleting_a_declared_object_is_named() -> None:
    seen = replace(CLEAN, deletions=[*CLEAN.deletions, CONFIG])
    assert pruned_while_declared(seen) == ["shop: ConfigMap config deleted while Git declares it"]


def test_synced_with_a_live_object_that_differs_or_is_missing() -> None:
    assert synced_but_differs(replace(CLEAN, live={**CLEAN.live, CONFIG: config("1")})) == [
        "shop: Synced but ConfigMap config differs from Git"
    ]
    assert synced_but_differs(replace(CLEAN, live={WEB: deployment(1)})) == [
        "shop: Synced but ConfigMap config is missing"
    ]
    out_of_sync = replace(CLEAN, apps={"shop": app(sync="OutOfSync")}, live={WEB: deployment(1)})
    assert synced_but_differs(out_of_sync) == []


def test_contains_accepts_defaults_the_server_added() -> None:
    wanted = {"spec": {"ports": [{"port": 80}]}}
    assert contains(
        {"spec": {"ports": [{"port": 80, "protocol": "TCP"}], "type": "ClusterIP"}}, wanted
    )
    assert not contains({"spec": {"ports": [{"port": 81}]}}, wanted)
    assert not contains({"spec": {"ports": [{"port": 80}, {"port": 81}]}}, wanted)


def test_an_operation_running_on_a_healthy_fleet_is_named() -> None:
    running = replace(CLEAN, apps={"shop": app(phase="Running")})
    assert running_when_healthy(running) == [
        "shop: operation still Running with every object healthy"
    ]
    unavailable = replace(running, live={**CLEAN.live, WEB: deployment(0)})
    assert running_when_healthy(unavailable) == []
