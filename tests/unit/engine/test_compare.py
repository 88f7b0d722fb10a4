"""Compare (SEMANTICS §3 compare options, §4, §5 resource status): one app, end to end."""

import copy
import json
from typing import Any

import pytest

from app.engine.compare import (
    CompareSettings,
    ComparisonResult,
    compare,
    unknown_comparison,
)
from app.engine.diff import DiffMode
from app.engine.exclusions import ResourceExclusion
from app.engine.health import HealthCustomizations
from app.engine.redact import MASK
from app.model.app_spec import ResourceIgnoreDifferences
from app.model.application import Application
from app.model.health import HealthStatus, HealthStatusCode
from app.model.project import AppProject
from app.model.resource import ResourceKey
from app.model.sync import SyncStatusCode

SYNCED = SyncStatusCode.SYNCED
OUT = SyncStatusCode.OUT_OF_SYNC
UNKNOWN = SyncStatusCode.UNKNOWN
TRACKING = "argocd.argoproj.io/tracking-id"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def application(**spec: Any) -> Application:
    return Application.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": "guestbook", "namespace": "argocd"},
            "spec": {
                "source": {"repoURL": "https://github.com/org/repo", "path": "guestbook"},
                "destination": {"server": "https://kubernetes.default.svc", "namespace": "prod"},
                **spec,
            },
        }
    )


def deployment(name: str = "web", image: str = "nginx:1", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": image}]},
            },
            **spec,
        },
    }


def tracked(obj: dict[str, Any], app: str = "guestbook") -> dict[str, Any]:
    out = copy.deepcopy(obj)
    meta = out["metadata"]
    meta.setdefault("namespace", "prod")
    group = out["apiVersion"].rpartition("/")[0]
    meta.setdefault("annotations", {})[TRACKING] = (
        f"{app}:{group}/{out['kind']}:{meta['namespace']}/{meta['name']}"
    )
    return out


def as_live(target: dict[str, Any], *, applied: bool = True, **changes: Any) -> dict[str, Any]:
    """What the server returns after `kubectl apply` of `target`: defaults, status, bookkeeping."""
    live = tracked(target)
    if applied:
        live["metadata"]["annotations"][LAST_APPLIED] = json.dumps(tracked(target))
    live["metadata"] |= {
        "uid": "8d0c",
        "resourceVersion": "42",
        "generation": 1,
        "creationTimestamp": "2024-05-01T10:00:00Z",
        "managedFields": [{"manager": "kubectl", "operation": "Update"}],
    }
    if live["kind"] == "Deployment":
        spec = live["spec"]
        spec.setdefault("replicas", 1)
        spec |= {"progressDeadlineSeconds": 600, "revisionHistoryLimit": 10}
        container = spec["template"]["spec"]["containers"][0]
        container |= {
            "imagePullPolicy": "IfNotPresent",
            "terminationMessagePath": "/dev/termination-log",
        }
        live["status"] = {
            "observedGeneration": 1,
            "replicas": 1,
            "updatedReplicas": 1,
            "readyReplicas": 1,
            "availableReplicas": 1,
        }
    for path, value in changes.items():
        node = live
        *parents, last = path.split("__")
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[last] = value
    return live


def run(
    targets: list[dict[str, Any]],
    live: list[dict[str, Any]],
    *,
    app: Application | None = None,
    project: AppProject | None = None,
    settings: CompareSettings | None = None,
) -> ComparisonResult:
    return compare(
        app or application(),
        targets,
        live,
        project or AppProject.default(),
        settings or CompareSettings(),
    )


def status_of(result: ComparisonResult, name: str) -> SyncStatusCode | None:
    (match,) = [r for r in result.resources if r.key.name == name]
    return match.status


WEB = deployment()

RULES = [
    (
        "§4.6 three-way: server defaults, status and bookkeeping never show",
        [WEB],
        [as_live(WEB)],
        SYNCED,
        SYNCED,
    ),
    (
        "§4.6 three-way: a changed field shows",
        [deployment(image="nginx:2")],
        [as_live(WEB)],
        OUT,
        OUT,
    ),
    (
        "§4.6 two-way without last-applied: defaults still never show",
        [WEB],
        [as_live(WEB, applied=False)],
        SYNCED,
        SYNCED,
    ),
    (
        "§4.6 three-way: a field set by someone else and never applied does not show",
        [WEB],
        [as_live(WEB, spec__paused=True)],
        SYNCED,
        SYNCED,
    ),
    (
        "§4.6 three-way: a field removed from the target since last apply shows",
        [WEB],
        [as_live(deployment(minReadySeconds=5))],
        OUT,
        OUT,
    ),
    ("§4.7 live missing is Modified (OutOfSync)", [WEB], [], OUT, OUT),
    ("§4.7 target missing: extra tracked object is OutOfSync", [], [as_live(WEB)], OUT, OUT),
    (
        "§4.3 quantities: 1000m in the target equals 1 live",
        [
            deployment(
                **{
                    "template": {
                        "metadata": {"labels": {"app": "web"}},
                        "spec": {
                            "containers": [
                                {
                                    "name": "app",
                                    "image": "nginx:1",
                                    "resources": {"limits": {"cpu": "1000m", "memory": "1024Mi"}},
                                }
                            ]
                        },
                    }
                }
            )
        ],
        [
            as_live(
                deployment(
                    **{
                        "template": {
                            "metadata": {"labels": {"app": "web"}},
                            "spec": {
                                "containers": [
                                    {
                                        "name": "app",
                                        "image": "nginx:1",
                                        "resources": {"limits": {"cpu": "1", "memory": "1Gi"}},
                                    }
                                ]
                            },
                        }
                    }
                )
            )
        ],
        SYNCED,
        SYNCED,
    ),
    (
        "§4.3 creationTimestamp null in a rendered target is ignored",
        [{**WEB, "metadata": {"name": "web", "creationTimestamp": None}}],
        [as_live(WEB)],
        SYNCED,
        SYNCED,
    ),
]


@pytest.mark.parametrize(
    ("targets", "live", "resource_status", "app_status"),
    [r[1:] for r in RULES],
    ids=[r[0] for r in RULES],
)
def test_resource_and_app_sync_status(
    targets: list[dict[str, Any]],
    live: list[dict[str, Any]],
    resource_status: SyncStatusCode,
    app_status: SyncStatusCode,
) -> None:
    result = run(targets, live)
    assert status_of(result, "web") is resource_status
    assert result.sync_status is app_status


def test_diff_shows_the_change_as_unified_yaml() -> None:
    result = run([deployment(image="nginx:2")], [as_live(WEB)])
    (web,) = result.resources
    assert web.modified
    assert "--- live/apps/Deployment/prod/web" in web.diff
    assert "-      - image: nginx:1\n+      - image: nginx:2\n" in web.diff


def test_requires_pruning_only_for_extra_tracked_objects() -> None:
    result = run([WEB], [as_live(WEB), as_live(deployment("old"))])
    by_name = {r.key.name: r for r in result.resources}
    assert by_name["old"].requires_pruning and by_name["old"].status is OUT
    assert not by_name["web"].requires_pruning


def test_ignore_extraneous_keeps_the_app_synced() -> None:
    extra = as_live(deployment("extra"))
    extra["metadata"]["annotations"]["argocd.argoproj.io/compare-options"] = "IgnoreExtraneous"
    result = run([WEB], [as_live(WEB), extra])
    assert status_of(result, "extra") is OUT
    assert result.sync_status is SYNCED


HOOK_CASES = [
    ("argocd.argoproj.io/hook", "PreSync", "§5 hooks get no status and do not count"),
    ("argocd.argoproj.io/hook", "Skip", "§5 Skip targets get no status and do not count"),
    ("helm.sh/hook", "pre-install", "§5 Helm hooks get no status and do not count"),
]


@pytest.mark.parametrize(
    ("annotation", "value"), [h[:2] for h in HOOK_CASES], ids=[h[2] for h in HOOK_CASES]
)
def test_hooks_and_skip_do_not_count(annotation: str, value: str) -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "migrate", "annotations": {annotation: value}},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": []}}},
    }
    result = run([WEB, job], [as_live(WEB)])
    assert status_of(result, "migrate") is None
    assert result.sync_status is SYNCED
    assert [s.name for s in result.resource_statuses()] == ["web"]
    (migrate,) = [r for r in result.resources if r.key.name == "migrate"]
    assert migrate.hook is (value != "Skip")
    assert migrate.skip is (value == "Skip")


def test_copied_tracking_annotation_gets_no_status() -> None:
    copied = as_live(deployment("copy"))
    copied["metadata"]["annotations"][TRACKING] = "guestbook:apps/Deployment:prod/web"
    result = run([WEB, deployment("copy")], [as_live(WEB), copied])
    assert status_of(result, "copy") is None


def test_forbidden_kind_is_unknown_with_the_project_message() -> None:
    project = AppProject.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "AppProject",
            "metadata": {"name": "team"},
            "spec": {
                "sourceRepos": ["*"],
                "destinations": [{"server": "*", "namespace": "*"}],
                "namespaceResourceBlacklist": [{"group": "apps", "kind": "Deployment"}],
            },
        }
    )
    result = run([WEB], [as_live(WEB)], project=project)
    (web,) = result.resources
    assert web.status is UNKNOWN
    assert web.message == "resource apps:Deployment is not permitted in project team"
    assert any(
        c.type == "ComparisonError" and "not permitted" in c.message for c in result.conditions
    )


def test_forbidden_namespace_is_unknown() -> None:
    project = AppProject.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "AppProject",
            "metadata": {"name": "team"},
            "spec": {"destinations": [{"server": "*", "namespace": "prod"}]},
        }
    )
    other = {**WEB, "metadata": {"name": "web", "namespace": "kube-system"}}
    result = run([other], [], project=project)
    assert result.resources[0].message == "namespace kube-system is not permitted in project 'team'"


def test_shared_resource_warning() -> None:
    live = as_live(WEB)
    live["metadata"]["annotations"][TRACKING] = "other-app:apps/Deployment:prod/web"
    result = run([WEB], [live])
    assert [(c.type, c.message) for c in result.conditions] == [
        ("SharedResourceWarning", "Deployment/web is part of applications guestbook and other-app")
    ]


def test_repeated_resource_warning_keeps_the_last() -> None:
    result = run([deployment(image="nginx:1"), deployment(image="nginx:2")], [as_live(WEB)])
    assert [(c.type, c.message) for c in result.conditions] == [
        (
            "RepeatedResourceWarning",
            "Resource apps/Deployment/prod/web appeared 2 times among application resources.",
        )
    ]
    assert result.resources[0].modified


def test_excluded_resource_warning_and_drop() -> None:
    settings = CompareSettings(
        exclusions=(ResourceExclusion(api_groups=("apps",), kinds=("Deploy*",)),)
    )
    result = run([WEB], [], settings=settings)
    assert result.resources == ()
    assert [(c.type, c.message) for c in result.conditions] == [
        ("ExcludedResourceWarning", "Resource apps/Deployment web is excluded in the settings")
    ]


def config_map(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {}}


@pytest.mark.parametrize(
    ("exclusions", "inclusions", "managed"),
    [
        pytest.param((), (), ["old", "web"], id="nothing-excluded"),
        pytest.param((ResourceExclusion(kinds=("ConfigMap",)),), (), ["web"], id="excluded-kind"),
        pytest.param(
            (), (ResourceExclusion(api_groups=("apps",)),), ["web"], id="not-included-kind"
        ),
        pytest.param(
            (ResourceExclusion(kinds=("ConfigMap",), clusters=("https://other.example",)),),
            (),
            ["old", "web"],
            id="excluded-on-another-cluster",
        ),
    ],
)
def test_a_live_object_of_an_excluded_kind_is_not_the_apps_and_never_pruned(
    exclusions: tuple[ResourceExclusion, ...],
    inclusions: tuple[ResourceExclusion, ...],
    managed: list[str],
) -> None:
    settings = CompareSettings(exclusions=exclusions, inclusions=inclusions)
    result = run([WEB], [as_live(WEB), tracked(config_map("old"))], settings=settings)
    assert sorted(r.key.name for r in result.resources) == managed
    assert result.sync_status is (OUT if "old" in managed else SYNCED)


SECOND = "https://second.example"


@pytest.mark.parametrize(
    ("server", "managed"),
    [
        pytest.param(SECOND, [], id="resolved-server-matches-the-cluster-glob"),
        pytest.param("", ["old", "web"], id="unresolved-name-matches-only-star"),
    ],
)
def test_an_app_addressed_by_name_is_excluded_by_its_resolved_server(
    server: str, managed: list[str]
) -> None:
    exclusion = ResourceExclusion(kinds=("ConfigMap", "Deployment"), clusters=(SECOND,))
    settings = CompareSettings(exclusions=(exclusion,))
    by_name = application(destination={"name": "second", "namespace": "prod"})
    live = [as_live(WEB), tracked(config_map("old"))]
    result = compare(by_name, [WEB], live, AppProject.default(), settings, server=server)
    assert sorted(r.key.name for r in result.resources) == managed
    assert [c.type for c in result.conditions] == (["ExcludedResourceWarning"] if server else [])
    unknown = unknown_comparison(by_name, live, "render failed", settings, server=server)
    assert sorted(r.key.name for r in unknown.resources) == managed


def test_a_target_of_a_kind_not_included_is_dropped_with_a_warning() -> None:
    settings = CompareSettings(inclusions=(ResourceExclusion(kinds=("ConfigMap",)),))
    result = run([WEB], [], settings=settings)
    assert result.resources == ()
    assert [c.type for c in result.conditions] == ["ExcludedResourceWarning"]


def test_health_uses_the_settings_custom_checks() -> None:
    checks = HealthCustomizations.from_config(
        {
            "resource.customizations.health.apps_Deployment": (
                'return {status = "Suspended", message = "held by policy"}'
            )
        }
    )
    live = as_live(WEB)
    assert run([WEB], [live]).health.status is HealthStatusCode.HEALTHY
    held = run([WEB], [live], settings=CompareSettings(health=checks))
    assert held.health.status is HealthStatusCode.SUSPENDED
    assert held.resources[0].health == HealthStatus(HealthStatusCode.SUSPENDED, "held by policy")


def test_ignore_differences_from_app_and_system() -> None:
    app = application(
        ignoreDifferences=[
            {"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}
        ]
    )
    scaled = as_live(deployment(replicas=2), spec__replicas=5)
    assert run([deployment(replicas=2)], [scaled]).sync_status is OUT
    assert run([deployment(replicas=2)], [scaled], app=app).sync_status is SYNCED
    system = CompareSettings(
        ignore_differences=(
            ResourceIgnoreDifferences(group="*", kind="*", jq_path_expressions=[".spec.replicas"]),
        )
    )
    assert run([deployment(replicas=2)], [scaled], settings=system).sync_status is SYNCED


def test_invalid_ignore_rule_makes_everything_unknown() -> None:
    app = application(ignoreDifferences=[{"kind": "*", "jqPathExpressions": ["[range(1e9)]"]}])
    result = run([WEB], [as_live(WEB)], app=app)
    assert result.sync_status is UNKNOWN
    assert all(r.status is UNKNOWN for r in result.resources)
    (condition,) = result.conditions
    assert condition.type == "ComparisonError"
    assert "spec.ignoreDifferences[0].jqPathExpressions[0]" in condition.message


def test_render_failure_makes_every_resource_and_the_app_unknown() -> None:
    result = unknown_comparison(
        application(), [as_live(WEB)], "rendering failed: https://user:tok@git/x", CompareSettings()
    )
    assert result.sync_status is UNKNOWN
    assert [r.status for r in result.resources] == [UNKNOWN]
    assert result.conditions[0].message == "rendering failed: https://user:***@git/x"


def secret(**data: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "creds"},
        "type": "Opaque",
        "data": data,
    }


def test_secret_string_data_matches_live_data_and_diffs_are_masked() -> None:
    target = {**secret(), "stringData": {"password": "hunter2"}}
    del target["data"]
    live = as_live(secret(password="aHVudGVyMg=="), applied=False)
    assert run([target], [live]).sync_status is SYNCED
    changed = {**secret(), "stringData": {"password": "hunter3"}}
    del changed["data"]
    (creds,) = run([changed], [live]).resources
    assert creds.modified
    assert "aHVudGVy" not in creds.diff and "hunter" not in creds.diff
    assert f"-  password: {MASK}\n+  password: {MASK}+\n" in creds.diff


def test_targets_get_destination_namespace_and_tracking() -> None:
    (web,) = run([WEB], []).resources
    assert web.key == ResourceKey("apps", "Deployment", "prod", "web")
    assert web.target is not None
    assert web.target["metadata"]["annotations"][TRACKING] == "guestbook:apps/Deployment:prod/web"
    assert "annotations" not in WEB["metadata"], "inputs are not modified"


def test_health_is_assessed_and_aggregated() -> None:
    result = run([WEB], [as_live(WEB)])
    assert result.resources[0].health is not None
    assert result.resources[0].health.status is HealthStatusCode.HEALTHY
    assert result.health.status is HealthStatusCode.HEALTHY
    missing = run([WEB], [])
    assert missing.health.status is HealthStatusCode.MISSING


def managed_by(manager: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {
        "manager": manager,
        "operation": "Apply",
        "apiVersion": "apps/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": fields,
    }


def test_server_side_diff_follows_field_ownership() -> None:
    app = application(syncPolicy={"syncOptions": ["ServerSideApply=true"]})
    live = as_live(deployment(minReadySeconds=5), applied=False)
    container = {'k:{"name":"app"}': {".": {}, "f:image": {}, "f:name": {}}}
    template = {"f:metadata": {"f:labels": {"f:app": {}}}, "f:spec": {"f:containers": container}}
    owned = {"f:spec": {"f:minReadySeconds": {}, "f:selector": {}, "f:template": template}}
    live["metadata"]["managedFields"] = [managed_by("sluice", owned)]
    result = run([WEB], [live], app=app)
    (web,) = result.resources
    assert web.diff_mode is DiffMode.SERVER_SIDE
    assert web.modified, "a field Sluice applied before and no longer applies would be removed"
    assert "minReadySeconds" in web.diff


def test_a_diff_that_cannot_be_computed_is_unknown_and_does_not_trigger_a_sync() -> None:
    app = application(syncPolicy={"syncOptions": ["ServerSideApply=true"]})
    live = as_live(WEB, applied=False)
    live["metadata"]["managedFields"] = [{"manager": "sluice", "operation": "Apply"}]
    result = run([deployment(image="nginx:2")], [live], app=app)
    (web,) = result.resources
    assert web.status is UNKNOWN
    assert web.message.startswith("cannot compute the server-side diff: ")
    assert "managedFields[0]" in web.message
    assert result.sync_status is UNKNOWN


def test_compare_never_modifies_its_inputs() -> None:
    app = application(
        ignoreDifferences=[
            {"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}
        ]
    )
    targets = [deployment(image="nginx:2", replicas=3), {**secret(), "stringData": {"a": "b"}}]
    live = [as_live(WEB), as_live(deployment("old")), as_live(secret(a="Yw=="))]
    before = copy.deepcopy((targets, live))
    run(targets, live, app=app)
    assert (targets, live) == before


def test_an_app_outside_the_control_namespace_owns_objects_by_its_instance_name() -> None:
    ours = tracked(deployment("old"), app="team-a_guestbook")
    namesake = tracked(deployment("other"), app="guestbook")
    result = compare(
        application(),
        [],
        [ours, namesake],
        AppProject.default(),
        CompareSettings(),
        instance="team-a_guestbook",
    )
    assert [(r.key.name, r.requires_pruning) for r in result.resources] == [("old", True)]
