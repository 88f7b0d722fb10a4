"""Hook rules (SEMANTICS §2): detection, phases, delete policies, naming; and how a plain
resource's health moves its task on (SEMANTICS §1 step 3). The phase of a hook from its
health is the health engine's rule, tested there and in whole operations here."""

from datetime import UTC, datetime

import pytest

from app.engine.sync.hooks import (
    delete_policies,
    hook_problems,
    is_hook,
    is_ignored,
    is_skip,
    resource_phase,
    sync_phases,
)
from app.engine.sync.naming import hook_name
from app.model.health import HealthStatus, HealthStatusCode
from app.model.sync import HookDeletePolicy, OperationPhase, SyncPhase
from tests.unit.engine.sync.builders import obj

P = SyncPhase
HELM = "helm.sh/hook"

DETECTION = [
    ("no-annotation-is-a-plain-resource", {}, False, False, False, (P.SYNC,)),
    ("argo-presync", {"argocd.argoproj.io/hook": "PreSync"}, True, False, False, (P.PRE_SYNC,)),
    ("argo-sync", {"argocd.argoproj.io/hook": "Sync"}, True, False, False, (P.SYNC,)),
    ("argo-postsync", {"argocd.argoproj.io/hook": "PostSync"}, True, False, False, (P.POST_SYNC,)),
    ("argo-syncfail", {"argocd.argoproj.io/hook": "SyncFail"}, True, False, False, (P.SYNC_FAIL,)),
    (
        "argo-csv-one-task-per-phase",
        {"argocd.argoproj.io/hook": "PostSync, PreSync"},
        True,
        False,
        False,
        (P.PRE_SYNC, P.POST_SYNC),
    ),
    ("skip-only-is-not-a-hook", {"argocd.argoproj.io/hook": "Skip"}, False, True, False, ()),
    (
        "skip-with-a-phase-is-a-hook",
        {"argocd.argoproj.io/hook": "Skip,PreSync"},
        True,
        False,
        False,
        (P.PRE_SYNC,),
    ),
    ("argo-typo-is-ignored", {"argocd.argoproj.io/hook": "PreSnyc"}, True, False, True, ()),
    (
        "argo-predelete-only-never-syncs",
        {"argocd.argoproj.io/hook": "PreDelete"},
        True,
        False,
        False,
        (),
    ),
    ("helm-pre-install", {HELM: "pre-install"}, True, False, False, (P.PRE_SYNC,)),
    ("helm-pre-upgrade", {HELM: "pre-upgrade"}, True, False, False, (P.PRE_SYNC,)),
    ("helm-post-install", {HELM: "post-install"}, True, False, False, (P.POST_SYNC,)),
    ("helm-post-upgrade", {HELM: "post-upgrade"}, True, False, False, (P.POST_SYNC,)),
    (
        "helm-pre-install-and-pre-upgrade-one-task",
        {HELM: "pre-install,pre-upgrade"},
        True,
        False,
        False,
        (P.PRE_SYNC,),
    ),
    ("helm-test-is-ignored", {HELM: "test"}, True, False, True, ()),
    ("helm-crd-install-is-not-a-hook", {HELM: "crd-install"}, False, False, False, (P.SYNC,)),
    (
        "argo-annotation-wins-over-helm",
        {"argocd.argoproj.io/hook": "Sync", HELM: "pre-install"},
        True,
        False,
        False,
        (P.SYNC,),
    ),
    (
        "helm-counts-when-argo-has-no-valid-type",
        {"argocd.argoproj.io/hook": "Bogus", HELM: "post-install"},
        True,
        False,
        False,
        (P.POST_SYNC,),
    ),
]


@pytest.mark.parametrize(
    ("annotations", "hook", "skip", "ignored", "phases"),
    [c[1:] for c in DETECTION],
    ids=[c[0] for c in DETECTION],
)
def test_hook_detection(
    annotations: dict[str, str],
    hook: bool,
    skip: bool,
    ignored: bool,
    phases: tuple[SyncPhase, ...],
) -> None:
    o = obj("Job", "j", annotations=annotations)
    assert (is_hook(o), is_skip(o), is_ignored(o), sync_phases(o)) == (hook, skip, ignored, phases)


B, S, F = (
    HookDeletePolicy.BEFORE_HOOK_CREATION,
    HookDeletePolicy.HOOK_SUCCEEDED,
    HookDeletePolicy.HOOK_FAILED,
)
POLICIES = [
    ("none-means-before-hook-creation", {}, (B,)),
    ("argo-single", {"argocd.argoproj.io/hook-delete-policy": "HookSucceeded"}, (S,)),
    (
        "argo-csv",
        {"argocd.argoproj.io/hook-delete-policy": "HookSucceeded,HookFailed"},
        (S, F),
    ),
    ("helm-mapped", {"helm.sh/hook-delete-policy": "hook-failed"}, (F,)),
    (
        "argo-and-helm-merged",
        {
            "argocd.argoproj.io/hook-delete-policy": "HookSucceeded",
            "helm.sh/hook-delete-policy": "before-hook-creation,hook-succeeded",
        },
        (S, B),
    ),
    ("unknown-values-ignored", {"argocd.argoproj.io/hook-delete-policy": "Never"}, (B,)),
]


@pytest.mark.parametrize(
    ("annotations", "expected"), [c[1:] for c in POLICIES], ids=[c[0] for c in POLICIES]
)
def test_delete_policies(
    annotations: dict[str, str], expected: tuple[HookDeletePolicy, ...]
) -> None:
    assert delete_policies(obj("Job", "j", annotations=annotations)) == expected


PROBLEMS = [
    ("typo-in-hook-type", {"argocd.argoproj.io/hook": "PreSnyc"}, "unknown hook type 'PreSnyc'"),
    ("helm-test-left-out", {HELM: "test"}, "Helm hook 'test' has no Argo CD equivalent"),
    (
        "unknown-delete-policy",
        {"argocd.argoproj.io/hook-delete-policy": "Never"},
        "unknown delete policy 'Never'",
    ),
]


@pytest.mark.parametrize(
    ("annotations", "needle"), [c[1:] for c in PROBLEMS], ids=[c[0] for c in PROBLEMS]
)
def test_hook_annotations_without_effect_are_reported(
    annotations: dict[str, str], needle: str
) -> None:
    problems = hook_problems(obj("Job", "j", annotations=annotations), "shop: batch/Job:shop/j")
    assert any(p.startswith("shop: batch/Job:shop/j: ") and needle in p for p in problems)


def test_valid_hook_annotations_report_nothing() -> None:
    o = obj("Job", "j", hook="PreSync,PostSync", policy="HookSucceeded,BeforeHookCreation")
    assert hook_problems(o, "x") == []


STARTED = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
NAMES = [
    ("long-revision-cut-to-7", "0123456789abcdef", P.PRE_SYNC, "migrate-0123456-presync-"),
    ("seven-char-revision-whole", "abcdef0", P.POST_SYNC, "migrate-abcdef0-postsync-"),
    ("eight-char-revision-cut", "ABCDEF01", P.SYNC, "migrate-abcdef0-sync-"),
    ("short-revision-whole-and-lowered", "V1.2", P.SYNC_FAIL, "migrate-v1.2-syncfail-"),
]


@pytest.mark.parametrize(
    ("revision", "phase", "prefix"), [c[1:] for c in NAMES], ids=[c[0] for c in NAMES]
)
def test_generate_name_hooks_get_deterministic_names(
    revision: str, phase: SyncPhase, prefix: str
) -> None:
    name = hook_name("migrate-", revision, phase, STARTED)
    assert name == f"{prefix}{int(STARTED.timestamp())}"
    assert hook_name("migrate-", revision, phase, STARTED) == name


H = HealthStatusCode
RESOURCE_HEALTH = [
    ("no-health-check-succeeds", None, OperationPhase.SUCCEEDED),
    ("healthy-succeeds", HealthStatus(H.HEALTHY), OperationPhase.SUCCEEDED),
    ("degraded-fails", HealthStatus(H.DEGRADED), OperationPhase.FAILED),
    ("progressing-stays-running", HealthStatus(H.PROGRESSING), None),
    ("suspended-stays-running", HealthStatus(H.SUSPENDED), None),
    ("unknown-stays-running", HealthStatus(H.UNKNOWN), None),
    ("missing-stays-running", HealthStatus(H.MISSING), None),
]


@pytest.mark.parametrize(
    ("health", "phase"), [c[1:] for c in RESOURCE_HEALTH], ids=[c[0] for c in RESOURCE_HEALTH]
)
def test_resource_phase_from_health(
    health: HealthStatus | None, phase: OperationPhase | None
) -> None:
    assert resource_phase(health)[0] is phase
