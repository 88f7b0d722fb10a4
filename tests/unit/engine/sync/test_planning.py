"""Planning (SEMANTICS §1 tasks, §2 hooks, §3 options): which tasks an operation gets."""

import pytest

from app.engine.sync import ApplyMode, PruneMode, ResourceScope, SyncTask
from app.model.app_spec import ApplicationSource
from app.model.errors import SpecError
from app.model.resource import GroupKind, KubeObject, ResourceKey
from app.model.sync import Propagation, SyncPhase
from tests.unit.engine.sync.builders import (
    NAMESPACE,
    REVISION,
    app,
    live_of,
    obj,
    operation,
    plan,
    scopes,
)
from tests.unit.engine.sync.fake_cluster import T0


def names(tasks: tuple[SyncTask, ...]) -> list[str]:
    return [f"{t.sync_phase.value}:{t.key.kind}/{t.key.name}" for t in tasks]


def only(tasks: tuple[SyncTask, ...], name: str) -> SyncTask:
    (task,) = [t for t in tasks if t.key.name == name]
    return task


def test_plain_target_gets_one_sync_task_in_the_destination_namespace() -> None:
    (task,) = plan([obj("Deployment", "web")]).tasks
    assert task.key == ResourceKey("apps", "Deployment", NAMESPACE, "web")
    assert task.target is not None
    assert task.target["metadata"]["namespace"] == NAMESPACE
    assert (task.sync_phase, task.hook, task.is_prune) == (SyncPhase.SYNC, False, False)


def test_explicit_namespace_is_kept_and_cluster_scoped_objects_get_none() -> None:
    tasks = plan(
        [obj("ConfigMap", "c", namespace="other"), obj("ClusterRole", "r", namespace="x")]
    ).tasks
    assert {t.key.name: t.key.namespace for t in tasks} == {"c": "other", "r": ""}
    assert "namespace" not in only(tasks, "r").target["metadata"]  # type: ignore[index]


def test_hook_gets_one_task_per_phase_with_the_hook_finalizer() -> None:
    tasks = plan([obj("Job", "db", hook="PreSync,PostSync", policy="HookSucceeded")]).tasks
    assert names(tasks) == ["PreSync:Job/db", "PostSync:Job/db"]
    for task in tasks:
        assert task.hook
        assert task.target is not None
        assert task.target["metadata"]["finalizers"] == ["argocd.argoproj.io/hook-finalizer"]


def test_deletion_hooks_get_no_task_unless_they_also_declare_a_sync_phase() -> None:
    targets = [
        obj("Job", "pre", hook="PreDelete"),
        obj("Job", "post", hook="PostDelete"),
        obj("Job", "helm-pre", annotations={"helm.sh/hook": "pre-delete"}),
        obj("Job", "both", hook="PreDelete,PostSync"),
        obj("ConfigMap", "cfg"),
    ]
    live = live_of(obj("Job", "pre", hook="PreDelete"), obj("Job", "post", hook="PostDelete"))
    result = plan(targets, live=live)
    assert names(result.tasks) == ["Sync:ConfigMap/cfg", "PostSync:Job/both"]
    assert not result.warnings and not result.refusal


def test_generate_name_hook_is_named_from_revision_phase_and_start() -> None:
    (task,) = plan([obj("Job", "", hook="PreSync", generate_name="migrate-")]).tasks
    assert task.key.name == f"migrate-{REVISION[:7]}-presync-{int(T0.timestamp())}"


def test_target_without_a_name_is_a_clear_error() -> None:
    with pytest.raises(SpecError, match=r"shop: apps/Deployment:/: metadata.name: is required"):
        plan([obj("Deployment", "", generate_name="web-")])


def test_skip_target_gets_no_task_and_its_live_twin_is_not_pruned() -> None:
    skipped = obj("ConfigMap", "legacy", hook="Skip")
    assert plan([skipped], live=live_of(obj("ConfigMap", "legacy"))).tasks == ()


def test_ignored_hook_is_dropped_and_reported() -> None:
    result = plan([obj("Pod", "t", annotations={"helm.sh/hook": "test"})])
    assert result.tasks == ()
    assert any("Helm hook 'test'" in w for w in result.warnings)


def test_hook_that_exists_only_live_is_never_pruned() -> None:
    assert plan([], live=live_of(obj("Job", "old-hook", hook="PreSync"))).tasks == ()


def test_live_object_without_target_gets_a_prune_task() -> None:
    (task,) = plan([], live=live_of(obj("ConfigMap", "old"))).tasks
    assert task.is_prune and task.key.name == "old" and task.live_uid == "live-0"
    assert task.prune_mode is PruneMode.ENABLED


@pytest.mark.parametrize(
    ("options", "mode"),
    [("Prune=false", PruneMode.DISABLED), ("Prune=confirm", PruneMode.CONFIRM)],
    ids=["prune-false-on-live", "prune-confirm-on-live"],
)
def test_prune_options_on_the_live_object(options: str, mode: PruneMode) -> None:
    (task,) = plan([], live=live_of(obj("ConfigMap", "old", options=options))).tasks
    assert task.prune_mode is mode


def test_selective_sync_plans_only_listed_resources_and_no_hooks() -> None:
    targets = [
        obj("Deployment", "web"),
        obj("Service", "web"),
        obj("Job", "migrate", hook="PreSync"),
    ]
    op = operation(resources=[{"group": "apps", "kind": "Deployment", "name": "web"}])
    assert names(plan(targets, live=live_of(obj("ConfigMap", "old")), op=op).tasks) == [
        "Sync:Deployment/web"
    ]


def test_selective_sync_honours_the_namespace_of_a_listed_resource() -> None:
    targets = [obj("ConfigMap", "c", namespace="a"), obj("ConfigMap", "c", namespace="b")]
    op = operation(resources=[{"kind": "ConfigMap", "name": "c", "namespace": "b"}])
    assert [t.key.namespace for t in plan(targets, op=op).tasks] == ["b"]


def test_a_selective_sync_naming_resources_the_app_lacks_is_refused_naming_them() -> None:
    targets = [obj("Deployment", "web"), obj("Service", "web")]
    op = operation(
        resources=[
            {"group": "apps", "kind": "Deployment", "name": "web"},
            {"kind": "ConfigMap", "name": "old"},
            {"kind": "ConfigMap", "name": "nowhere", "namespace": "x"},
            {"group": "apps", "kind": "Deployment", "name": "typo"},
        ]
    )
    result = plan(targets, live=live_of(obj("ConfigMap", "old")), op=op)
    assert result.refusal == (
        "the selected resources match none of the application's resources: "
        ":ConfigMap:x/nowhere, apps:Deployment:typo; select resources the application "
        "manages (sluice app resources lists them)"
    )


def test_apply_strategy_runs_no_hooks() -> None:
    targets = [obj("Deployment", "web"), obj("Job", "migrate", hook="PreSync")]
    assert names(plan(targets, op=operation(strategy="apply")).tasks) == ["Sync:Deployment/web"]


def test_create_namespace_adds_a_presync_task_when_the_namespace_is_missing() -> None:
    tasks = plan(
        [obj("ConfigMap", "c")], application=app(sync_options=["CreateNamespace=true"])
    ).tasks
    ns = tasks[0]
    assert (ns.sync_phase, ns.key, ns.creates_namespace) == (
        SyncPhase.PRE_SYNC,
        ResourceKey("", "Namespace", "", NAMESPACE),
        True,
    )
    assert ns.target == {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    assert ns.mode is ApplyMode.APPLY


def test_create_namespace_does_nothing_for_an_existing_unmanaged_namespace() -> None:
    existing = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    tasks = plan(
        [obj("ConfigMap", "c")],
        application=app(sync_options=["CreateNamespace=true"]),
        namespace_live=existing,
    ).tasks
    assert names(tasks) == ["Sync:ConfigMap/c"]


def test_managed_namespace_metadata_is_server_side_applied_to_an_existing_namespace() -> None:
    existing = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    application = app(
        sync_options=["CreateNamespace=true"],
        extra_policy={
            "managedNamespaceMetadata": {"labels": {"team": "a"}, "annotations": {"owner": "b"}}
        },
    )
    result = plan([obj("ConfigMap", "c")], application=application, namespace_live=existing)
    ns = result.tasks[0]
    assert (ns.creates_namespace, ns.mode) == (False, ApplyMode.SERVER_SIDE)
    assert ns.target is not None
    assert ns.target["metadata"]["labels"] == {"team": "a"}
    assert ns.target["metadata"]["annotations"] == {
        "owner": "b",
        "argocd.argoproj.io/sync-options": "ServerSideApply=true",
    }
    assert result.managed_namespace_metadata is not None


def test_create_namespace_defers_to_a_namespace_in_the_manifests() -> None:
    tasks = plan(
        [obj("Namespace", NAMESPACE)], application=app(sync_options=["CreateNamespace=true"])
    ).tasks
    assert names(tasks) == ["Sync:Namespace/shop"]


OUT_OF_SYNC_ONLY = [
    ("unchanged-with-live-is-skipped", False, True, False, True),
    ("modified-runs", True, True, False, False),
    ("not-compared-runs", None, True, False, False),
    ("creates-always-run", False, False, False, False),
    ("hooks-always-run", False, True, True, False),
]


@pytest.mark.parametrize(
    ("modified", "has_live", "hook", "skipped"),
    [c[1:] for c in OUT_OF_SYNC_ONLY],
    ids=[c[0] for c in OUT_OF_SYNC_ONLY],
)
def test_apply_out_of_sync_only(
    modified: bool | None, has_live: bool, hook: bool, skipped: bool
) -> None:
    target = obj("ConfigMap", "c", hook="Sync" if hook else None)
    live = live_of(obj("ConfigMap", "c")) if has_live else {}
    key = ResourceKey("", "ConfigMap", NAMESPACE, "c")
    compared = {} if modified is None else {key: modified}
    (task,) = plan(
        [target],
        live=live,
        modified=compared,
        application=app(sync_options=["ApplyOutOfSyncOnly=true"]),
    ).tasks
    assert task.skipped is skipped


MODES = [
    ("apply-by-default", [], None, False, ApplyMode.APPLY, False),
    ("replace-at-app-level", ["Replace=true"], None, False, ApplyMode.REPLACE, False),
    ("replace-on-resource", [], "Replace=true", False, ApplyMode.REPLACE, False),
    ("ssa-at-app-level", ["ServerSideApply=true"], None, False, ApplyMode.SERVER_SIDE, False),
    ("resource-ssa-false-overrides-app",
     ["ServerSideApply=true"], "ServerSideApply=false", False, ApplyMode.APPLY, False),
    ("replace-wins-over-ssa",
     ["ServerSideApply=true"], "Replace=true", False, ApplyMode.REPLACE, False),
    ("force-from-operation", [], None, True, ApplyMode.APPLY, True),
    ("force-on-resource", [], "Force=true", False, ApplyMode.APPLY, True),
]  # fmt: skip


@pytest.mark.parametrize(
    ("app_options", "resource_options", "op_force", "mode", "force"),
    [c[1:] for c in MODES],
    ids=[c[0] for c in MODES],
)
def test_apply_mode_and_force(
    app_options: list[str],
    resource_options: str | None,
    op_force: bool,
    mode: ApplyMode,
    force: bool,
) -> None:
    (task,) = plan(
        [obj("Deployment", "web", options=resource_options)],
        application=app(sync_options=app_options),
        op=operation(force=op_force),
    ).tasks
    assert (task.mode, task.force) == (mode, force)


def test_validate_false_turns_validation_off_for_the_resource() -> None:
    tasks = plan([obj("ConfigMap", "a", options="Validate=false"), obj("ConfigMap", "b")]).tasks
    assert {t.key.name: t.validate for t in tasks} == {"a": False, "b": True}


@pytest.mark.parametrize(
    ("options", "propagation"),
    [
        ([], Propagation.FOREGROUND),
        (["PrunePropagationPolicy=background"], Propagation.BACKGROUND),
        (["PrunePropagationPolicy=orphan"], Propagation.ORPHAN),
    ],
    ids=["default-foreground", "background", "orphan"],
)
def test_prune_propagation_policy(options: list[str], propagation: Propagation) -> None:
    assert plan([], application=app(sync_options=options)).options.propagation is propagation


def test_operation_sync_options_take_the_place_of_the_spec_options() -> None:
    result = plan(
        [obj("Deployment", "web")],
        application=app(sync_options=["ServerSideApply=true"]),
        op=operation(sync_options=["Replace=true"]),
    )
    assert result.tasks[0].mode is ApplyMode.REPLACE


SHARED = {"type": "SharedResourceWarning", "message": "ConfigMap/c is part of applications a and b"}


@pytest.mark.parametrize(
    ("options", "conditions", "refusal"),
    [
        (["FailOnSharedResource=true"], [SHARED], f"Shared resource found: {SHARED['message']}"),
        (["FailOnSharedResource=true"], [], ""),
        ([], [SHARED], ""),
    ],
    ids=["option-and-condition-refuse", "no-condition-runs", "no-option-runs"],
)
def test_fail_on_shared_resource(
    options: list[str], conditions: list[dict[str, str]], refusal: str
) -> None:
    result = plan(
        [obj("ConfigMap", "c")], application=app(sync_options=options, conditions=conditions)
    )
    assert result.refusal == refusal


def widget() -> KubeObject:
    return obj("Widget", "w", api_version="w.example.com/v1")


def widget_crd() -> KubeObject:
    return obj(
        "CustomResourceDefinition",
        "widgets.w.example.com",
        spec={"group": "w.example.com", "names": {"kind": "Widget"}},
    )


def test_unknown_api_makes_the_task_invalid_with_advice() -> None:
    (task,) = plan([widget()]).tasks
    assert "the cluster does not serve w.example.com/v1 Widget" in task.invalid
    assert "SkipDryRunOnMissingResource=true" in task.invalid


@pytest.mark.parametrize(
    ("targets", "app_options"),
    [
        ([widget(), widget_crd()], []),
        (
            [
                obj(
                    "Widget",
                    "w",
                    api_version="w.example.com/v1",
                    options="SkipDryRunOnMissingResource=true",
                )
            ],
            [],
        ),
        ([widget()], ["SkipDryRunOnMissingResource=true"]),
    ],
    ids=["crd-in-the-same-sync", "resource-option", "app-option"],
)
def test_unknown_api_skips_dry_run_instead(
    targets: list[KubeObject], app_options: list[str]
) -> None:
    task = only(plan(targets, application=app(sync_options=app_options)).tasks, "w")
    assert (task.invalid, task.skip_dry_run) == ("", True)


def test_project_verdict_makes_tasks_invalid() -> None:
    def project(o: KubeObject, scope: ResourceScope | None) -> str:
        if o["kind"] == "ClusterRole":
            return (
                "resource rbac.authorization.k8s.io:ClusterRole is not permitted in project default"
            )
        return ""

    tasks = plan([obj("ClusterRole", "r"), obj("ConfigMap", "c")], project=project).tasks
    assert {t.key.name: t.invalid for t in tasks} == {
        "r": "resource rbac.authorization.k8s.io:ClusterRole is not permitted in project default",
        "c": "",
    }


def test_options_without_effect_are_reported_with_app_and_object() -> None:
    result = plan(
        [obj("ConfigMap", "c", options="CreateNamespace=true")],
        application=app(sync_options=["Bogus=1"]),
    )
    assert any(
        w.startswith("shop: spec.syncPolicy.syncOptions[0]: unknown sync option")
        for w in result.warnings
    )
    assert any(
        w.startswith("shop: /ConfigMap:/c: annotation") and "CreateNamespace" in w
        for w in result.warnings
    )


def test_api_lookup_may_be_a_mapping() -> None:
    api = {GroupKind("apps", "Deployment"): ResourceScope.NAMESPACED}
    (task,) = plan([obj("Deployment", "web")], api=api).tasks
    assert task.invalid == "" and task.key.namespace == NAMESPACE
    assert scopes(GroupKind("w.example.com", "Widget")) is None


def test_rollback_records_the_history_source_not_the_spec_source() -> None:
    op = operation(strategy="apply")
    assert op.sync is not None
    op.sync.source = ApplicationSource(repo_url="https://git.example/shop.git", path="old")
    result = plan([obj("Job", "h", hook="PreSync")], op=op)
    assert result.source is not None and result.source.path == "old"
    assert result.tasks == ()


def test_an_operation_with_local_manifests_is_refused_not_synced_from_git() -> None:
    op = operation()
    assert op.sync is not None
    op.sync.manifests = ["apiVersion: v1\nkind: ConfigMap\nmetadata: {name: local}\n"]
    with pytest.raises(SpecError, match=r"shop: operation.sync.manifests: a sync of local"):
        plan([obj("ConfigMap", "from-git")], op=op)


def test_every_generate_name_hook_of_a_phase_gets_its_own_task_and_name() -> None:
    base = f"{REVISION[:7]}-presync-{int(T0.timestamp())}"
    hooks = [
        obj("Job", "", hook="PreSync", generate_name="migrate-"),
        obj("Job", "", hook="PreSync", generate_name="seed-"),
        obj("Job", "", hook="PreSync", generate_name="migrate-"),
    ]
    assert sorted(names(plan(hooks).tasks)) == [
        f"PreSync:Job/migrate-{base}",
        f"PreSync:Job/migrate-{base}-2",
        f"PreSync:Job/seed-{base}",
    ]
