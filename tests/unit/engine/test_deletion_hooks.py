"""Deletion hooks: which finalizers an app carries, which stage its deletion is in, and what
each stage does next (create, wait, block, clean up, take its finalizer off)."""

from typing import Any

import pytest

from app.engine.cascade import cascade_step
from app.engine.deletion_hooks import (
    DeletionStage,
    deletion_hooks_of,
    deletion_stage,
    hook_finalizers,
    hook_step,
)
from app.model.annotations import (
    HELM_HOOK,
    HOOK,
    HOOK_DELETE_POLICY,
    POST_DELETE_FINALIZER,
    PRE_DELETE_FINALIZER,
    RESOURCES_FINALIZER,
)
from app.model.application import Application
from app.model.sync import HookType

PRE = PRE_DELETE_FINALIZER
PRE_CLEANUP = f"{PRE_DELETE_FINALIZER}/cleanup"
POST = POST_DELETE_FINALIZER
POST_CLEANUP = f"{POST_DELETE_FINALIZER}/cleanup"
ALL = [PRE, PRE_CLEANUP, RESOURCES_FINALIZER, POST, POST_CLEANUP]


def hook(name: str, hook_type: str, policy: str = "", kind: str = "Job", **meta: Any) -> Any:
    annotations = {HOOK: hook_type, **({HOOK_DELETE_POLICY: policy} if policy else {})}
    metadata = {"name": name, "namespace": "d", "annotations": annotations, **meta}
    api_version = "batch/v1" if kind == "Job" else "v1"
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata}


def with_status(obj: Any, condition: str, message: str = "") -> Any:
    cond = {"type": condition, "status": "True", "message": message}
    return {**obj, "status": {"conditions": [cond]}}


def running(obj: Any) -> Any:
    return {**obj, "status": {"active": 1}}


def names(objects: tuple[Any, ...]) -> list[str]:
    return [o["metadata"]["name"] for o in objects]


def test_manifests_declare_deletion_hooks_by_argo_or_helm_annotation() -> None:
    manifests = [
        hook("a", "PreSync"),
        hook("b", "PreDelete,PostSync"),
        {"kind": "Job", "metadata": {"name": "c", "annotations": {HELM_HOOK: "post-delete"}}},
    ]
    assert deletion_hooks_of(manifests) == {HookType.PRE_DELETE, HookType.POST_DELETE}
    assert deletion_hooks_of([hook("a", "PreSync")]) == frozenset()


FINALIZER_CASES = [
    ("none-needed-none-there", [], frozenset(), None),
    (
        "pre-delete-adds-both-after-others",
        [RESOURCES_FINALIZER],
        frozenset({HookType.PRE_DELETE}),
        [RESOURCES_FINALIZER, PRE, PRE_CLEANUP],
    ),
    (
        "both-types",
        [],
        frozenset({HookType.PRE_DELETE, HookType.POST_DELETE}),
        [PRE, PRE_CLEANUP, POST, POST_CLEANUP],
    ),
    ("already-right", [PRE, PRE_CLEANUP, "x.io/y"], frozenset({HookType.PRE_DELETE}), None),
    (
        "hooks-gone-from-git-remove-only-ours",
        ["x.io/y", POST, POST_CLEANUP, RESOURCES_FINALIZER],
        frozenset(),
        ["x.io/y", RESOURCES_FINALIZER],
    ),
]


@pytest.mark.parametrize(
    ("finalizers", "hooks", "expected"),
    [case[1:] for case in FINALIZER_CASES],
    ids=[case[0] for case in FINALIZER_CASES],
)
def test_hook_finalizers(
    finalizers: list[str], hooks: frozenset[HookType], expected: list[str] | None
) -> None:
    assert hook_finalizers(finalizers, hooks) == expected


@pytest.mark.parametrize(
    ("hooks", "deleting"),
    [(frozenset({HookType.PRE_DELETE}), True), (None, False)],
    ids=["never-while-the-app-is-being-deleted", "not-when-the-manifests-were-not-read"],
)
def test_hook_finalizers_are_left_alone(hooks: frozenset[HookType] | None, deleting: bool) -> None:
    assert hook_finalizers(["x.io/y"], hooks, deleting=deleting) is None


def test_stages_follow_the_finalizers_in_order() -> None:
    remaining = list(ALL)
    seen = []
    while (stage := deletion_stage(remaining)) is not None:
        seen.append(stage)
        remaining.pop(0)
    assert seen == list(DeletionStage)
    assert deletion_stage(["other.io/x"]) is None
    assert deletion_stage([f"{RESOURCES_FINALIZER}/background", POST]) is DeletionStage.RESOURCES


def test_pre_delete_creates_missing_hooks_then_waits_then_takes_its_finalizer_off() -> None:
    targets = [hook("pre", "PreDelete"), hook("post", "PostDelete"), hook("sync", "PreSync")]
    step = hook_step(DeletionStage.PRE_DELETE, ALL, targets, [])
    assert names(step.create) == ["pre"] and not step.done

    step = hook_step(DeletionStage.PRE_DELETE, ALL, targets, [running(hook("pre", "PreDelete"))])
    assert not step.create and not step.done
    assert step.waiting and "batch/Job:d/pre" in step.waiting[0]

    complete = with_status(hook("pre", "PreDelete"), "Complete")
    step = hook_step(DeletionStage.PRE_DELETE, ALL, targets, [complete])
    assert step.done and step.finalizers == tuple(ALL[1:])


def test_a_failed_pre_delete_hook_blocks_with_its_name_and_message() -> None:
    failed = with_status(hook("pre", "PreDelete"), "Failed", "BackoffLimitExceeded")
    step = hook_step(DeletionStage.PRE_DELETE, ALL, [hook("pre", "PreDelete")], [failed])
    assert not step.done and not step.create
    assert "PreDelete hook batch/Job:d/pre failed: BackoffLimitExceeded" in step.problem
    assert PRE_DELETE_FINALIZER in step.problem


def test_no_pre_delete_hooks_left_in_git_takes_the_finalizer_off() -> None:
    step = hook_step(DeletionStage.PRE_DELETE, [PRE, PRE_CLEANUP], [], [])
    assert step.done and step.finalizers == (PRE_CLEANUP,)


def test_an_excluded_hook_is_not_created_and_the_step_says_so() -> None:
    kept = hook("pre", "PreDelete")
    excluded = [hook("gate", "PreDelete", kind="Pod"), hook("post", "PostDelete", kind="Pod")]
    step = hook_step(DeletionStage.PRE_DELETE, ALL, [kept], [], excluded=excluded)
    assert names(step.create) == ["pre"]
    assert step.excluded == (
        "PreDelete hook /Pod:d/gate is not created: its kind is excluded in the settings "
        "(resource.exclusions/resource.inclusions)",
    )
    done = with_status(kept, "Complete")
    step = hook_step(DeletionStage.PRE_DELETE, ALL, [kept], [done], excluded=excluded)
    assert step.done and step.finalizers == tuple(ALL[1:])


def test_a_generate_name_hook_gets_a_stable_name() -> None:
    target = hook("", "PostDelete", generateName="notify-")
    del target["metadata"]["name"]
    step = hook_step(DeletionStage.POST_DELETE, [POST, POST_CLEANUP], [target], [])
    assert names(step.create) == ["notify-postdelete"]
    live = with_status(hook("notify-postdelete", "PostDelete"), "Complete")
    assert hook_step(DeletionStage.POST_DELETE, [POST, POST_CLEANUP], [target], [live]).done


def test_a_failed_post_delete_hook_does_not_block() -> None:
    failed = with_status(hook("post", "PostDelete"), "Failed", "boom")
    step = hook_step(DeletionStage.POST_DELETE, [POST, POST_CLEANUP], [hook("post", "PostDelete")],
                     [failed])  # fmt: skip
    assert step.done and step.finalizers == (POST_CLEANUP,) and not step.problem


CLEANUP_CASES = [
    ("succeeded-deletes-hook-succeeded", "Complete", "HookSucceeded", ["post"]),
    ("succeeded-keeps-hook-failed", "Complete", "HookFailed", []),
    ("failed-deletes-hook-failed", "Failed", "HookFailed", ["post"]),
    ("failed-keeps-hook-succeeded", "Failed", "HookSucceeded", []),
    ("no-policy-is-before-hook-creation-kept", "Complete", "", []),
]


@pytest.mark.parametrize(
    ("condition", "policy", "deleted"),
    [case[1:] for case in CLEANUP_CASES],
    ids=[case[0] for case in CLEANUP_CASES],
)
def test_cleanup_follows_the_delete_policy(condition: str, policy: str, deleted: list[str]) -> None:
    live = [with_status(hook("post", "PostDelete", policy), condition), hook("other", "PreSync")]
    step = hook_step(DeletionStage.POST_DELETE_CLEANUP, [POST_CLEANUP], [], live)
    assert names(step.delete) == deleted
    assert step.done is (not deleted)
    if step.done:
        assert step.finalizers == ()


def test_cleanup_waits_for_a_hook_being_deleted() -> None:
    going = with_status(
        hook("pre", "PreDelete", "HookSucceeded", deletionTimestamp="2026-01-01T00:00:00Z"),
        "Complete",
    )
    step = hook_step(DeletionStage.PRE_DELETE_CLEANUP, [PRE_CLEANUP, RESOURCES_FINALIZER], [],
                     [going])  # fmt: skip
    assert not step.delete and not step.done and step.waiting
    gone = hook_step(DeletionStage.PRE_DELETE_CLEANUP, [PRE_CLEANUP, RESOURCES_FINALIZER], [], [])
    assert gone.finalizers == (RESOURCES_FINALIZER,)


def test_cascade_never_deletes_a_deletion_hook() -> None:
    app = Application.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {
                "name": "web",
                "namespace": "sluice",
                "finalizers": [RESOURCES_FINALIZER, POST, POST_CLEANUP],
                "deletionTimestamp": "2026-11-29T12:00:00Z",
            },
            "spec": {
                "destination": {"server": "https://kubernetes.default.svc", "namespace": "d"},
                "source": {"repoURL": "https://example.com/r.git", "path": "."},
            },
        }
    )
    cfg = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "d"}}
    live = [cfg, hook("pre", "PreDelete"), hook("post", "PostDelete"), hook("sync", "PreSync")]
    step = cascade_step(app, live)
    assert names(step.delete) == ["cfg", "sync"]
    finished = cascade_step(app, [hook("pre", "PreDelete")])
    assert finished.finalizers == (POST, POST_CLEANUP)
