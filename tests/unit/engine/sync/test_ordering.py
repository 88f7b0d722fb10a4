"""Execution order (SEMANTICS §1): phases, waves, kinds, names, and the fix-ups."""

import pytest

from app.engine.sync.ordering import KIND_ORDER, kind_rank, wave_of
from app.model.resource import KubeObject
from app.model.sync import SyncPhase
from tests.unit.engine.sync.builders import NAMESPACE, live_of, obj, plan

FULL_KIND_ORDER = [
    "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
    "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap",
    "StorageClass", "PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition",
    "ClusterRole", "ClusterRoleList", "ClusterRoleBinding", "ClusterRoleBindingList", "Role",
    "RoleList", "RoleBinding", "RoleBindingList", "Service", "DaemonSet", "Pod",
    "ReplicationController", "ReplicaSet", "Deployment", "HorizontalPodAutoscaler",
    "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
]  # fmt: skip


def order(targets: list[KubeObject], **kwargs: object) -> list[tuple[str, str, int, str]]:
    return [
        (t.sync_phase.value, t.key.kind, t.wave, t.key.name)
        for t in plan(targets, **kwargs).tasks  # type: ignore[arg-type]
    ]


def test_kind_order_is_the_full_list_of_semantics() -> None:
    assert list(KIND_ORDER) == FULL_KIND_ORDER


def test_full_kind_order_applies_to_tasks_of_one_wave() -> None:
    targets = [
        obj(kind, f"x{i}", spec={"group": "g.io", "names": {"kind": "Z"}})
        for i, kind in enumerate(reversed(FULL_KIND_ORDER))
    ]
    targets.append(obj("Widget", "a-widget", api_version="widgets.io/v1"))
    kinds = [kind for _, kind, _, _ in order(targets)]
    assert kinds == [*FULL_KIND_ORDER, "Widget"]


def test_unlisted_kinds_sort_after_all_listed_ones_by_name() -> None:
    assert kind_rank("APIService") < kind_rank("Widget") == kind_rank("Gadget") == 0
    targets = [
        obj("Widget", "b", api_version="w.io/v1"),
        obj("Gadget", "a", api_version="w.io/v1"),
        obj("APIService", "z"),
    ]
    assert [(k, n) for _, k, _, n in order(targets)] == [
        ("APIService", "z"),
        ("Gadget", "a"),
        ("Widget", "b"),
    ]


WAVES = [
    ("sync-wave", {"argocd.argoproj.io/sync-wave": "3"}, 3),
    ("negative-sync-wave", {"argocd.argoproj.io/sync-wave": "-2"}, -2),
    ("helm-hook-weight-when-no-sync-wave", {"helm.sh/hook-weight": "7"}, 7),
    (
        "sync-wave-wins-over-helm-weight",
        {"argocd.argoproj.io/sync-wave": "1", "helm.sh/hook-weight": "7"},
        1,
    ),
    (
        "non-integer-sync-wave-falls-back-to-helm-weight",
        {"argocd.argoproj.io/sync-wave": "one", "helm.sh/hook-weight": "5"},
        5,
    ),
    ("non-integer-everywhere-is-zero", {"argocd.argoproj.io/sync-wave": "1.5"}, 0),
    ("missing-is-zero", {}, 0),
]


@pytest.mark.parametrize(("annotations", "wave"), [c[1:] for c in WAVES], ids=[c[0] for c in WAVES])
def test_wave_of(annotations: dict[str, str], wave: int) -> None:
    assert wave_of(obj("ConfigMap", "c", annotations=annotations)) == wave


def test_sort_key_is_phase_then_wave_then_kind_then_name() -> None:
    targets = [
        obj("Job", "post", hook="PostSync", wave=-5),
        obj("Deployment", "b", wave=1),
        obj("Deployment", "a", wave=1),
        obj("ConfigMap", "z", wave=1),
        obj("Service", "s", wave=-1),
        obj("Job", "pre", hook="PreSync", wave=9),
        obj("Job", "fail", hook="SyncFail", wave=-9),
    ]
    assert order(targets) == [
        ("PreSync", "Job", 9, "pre"),
        ("Sync", "Service", -1, "s"),
        ("Sync", "ConfigMap", 1, "z"),
        ("Sync", "Deployment", 1, "a"),
        ("Sync", "Deployment", 1, "b"),
        ("PostSync", "Job", -5, "post"),
        ("SyncFail", "Job", -9, "fail"),
    ]


def test_waves_do_not_cross_phases() -> None:
    """A PostSync hook at wave -10 still runs after a Sync resource at wave 10."""
    phases = [
        p
        for p, _, _, _ in order(
            [obj("Job", "h", hook="PostSync", wave=-10), obj("ConfigMap", "c", wave=10)]
        )
    ]
    assert phases == ["Sync", "PostSync"]


def prunes(*waves: int, **live_options: str) -> list[KubeObject]:
    return [
        obj("ConfigMap", f"old{w:+d}", wave=w, options=live_options.get(f"old{w:+d}"))
        for w in waves
    ]


def test_prune_waves_are_mirrored() -> None:
    """With prune waves {-1, 0, 5}: -1 runs in 5, 5 in -1, 0 stays."""
    tasks = plan([], live=live_of(*prunes(-1, 0, 5))).tasks
    assert {t.key.name: t.wave for t in tasks} == {"old-1": 5, "old+0": 0, "old+5": -1}
    assert [t.key.name for t in tasks] == ["old+5", "old+0", "old-1"]


def test_prune_waves_mirror_around_the_middle_of_an_even_set() -> None:
    tasks = plan([], live=live_of(*prunes(1, 2, 3, 4))).tasks
    assert {t.key.name: t.wave for t in tasks} == {"old+1": 4, "old+2": 3, "old+3": 2, "old+4": 1}


def test_prune_last_on_the_live_object_moves_it_after_the_last_sync_wave() -> None:
    live = live_of(*prunes(-3, 2, **{"old-3": "PruneLast=true"}))
    tasks = plan([obj("Deployment", "web", wave=4)], live=live).tasks
    by_name = {t.key.name: t.wave for t in tasks}
    assert by_name["old-3"] == 5
    assert tasks[-1].key.name == "old-3"


def test_prune_last_at_app_level_moves_every_prune_task() -> None:
    from tests.unit.engine.sync.builders import app

    tasks = plan(
        [obj("ConfigMap", "keep", wave=-2)],
        live=live_of(*prunes(-1, 3)),
        application=app(sync_options=["PruneLast=true"]),
    ).tasks
    assert {t.key.name: t.wave for t in tasks if t.is_prune} == {"old-1": 4, "old+3": 4}


def test_prune_last_with_only_negative_waves_goes_to_wave_one() -> None:
    """max(0, highest Sync-phase wave) + 1."""
    live = live_of(*prunes(-4, **{"old-4": "PruneLast=true"}))
    tasks = plan([obj("ConfigMap", "c", wave=-7)], live=live).tasks
    assert {t.key.name: t.wave for t in tasks}["old-4"] == 1


def test_namespace_moves_before_its_objects_even_at_a_higher_wave() -> None:
    targets = [
        obj("Namespace", "other", wave=5),
        obj("Deployment", "web", namespace="other", wave=-1),
        obj("ConfigMap", "early", namespace=NAMESPACE, wave=-3),
    ]
    assert order(targets) == [
        ("Sync", "ConfigMap", -3, "early"),
        ("Sync", "Namespace", -1, "other"),
        ("Sync", "Deployment", -1, "web"),
    ]


def test_namespace_joins_the_phase_of_a_presync_hook_inside_it() -> None:
    targets = [obj("Namespace", "other"), obj("Job", "migrate", hook="PreSync", namespace="other")]
    assert order(targets) == [
        ("PreSync", "Namespace", 0, "other"),
        ("PreSync", "Job", 0, "migrate"),
    ]


def test_crd_moves_before_its_custom_resources() -> None:
    crd = obj(
        "CustomResourceDefinition",
        "widgets.w.example.com",
        wave=3,
        spec={"group": "w.example.com", "names": {"kind": "Widget"}},
    )
    widget = obj("Widget", "w1", api_version="w.example.com/v1", wave=-2)
    tasks = plan([widget, crd, obj("ConfigMap", "c", wave=-2)]).tasks
    assert [(t.key.kind, t.wave, t.sync_phase) for t in tasks] == [
        ("ConfigMap", -2, SyncPhase.SYNC),
        ("CustomResourceDefinition", -2, SyncPhase.SYNC),
        ("Widget", -2, SyncPhase.SYNC),
    ]


def test_task_ids_follow_execution_order() -> None:
    tasks = plan([obj("Service", "s"), obj("Job", "h", hook="PreSync")]).tasks
    assert [t.id for t in tasks] == [0, 1]
    assert tasks[0].key.kind == "Job"
