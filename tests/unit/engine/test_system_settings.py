"""argocd-cm read as Argo CD reads it: each key Sluice acts on, and every way it is refused."""

from typing import Any

import pytest

from app.engine.exclusions import ResourceExclusion
from app.engine.health import assess
from app.engine.system_settings import (
    SystemSettings,
    SystemSettingsError,
    parse_system_settings,
)
from app.engine.tracking import TrackingMethod
from app.model.app_spec import ResourceIgnoreDifferences
from app.model.health import HealthStatus, HealthStatusCode

ORIGIN = "ConfigMap sluice/argocd-cm"
HEALTH = "resource.customizations.health."
IGNORE = "resource.customizations.ignoreDifferences."
DEGRADED_LUA = 'return {status = "Degraded", message = "widget " .. obj.metadata.name}'


def parse_keys(data: dict[str, Any]) -> SystemSettings:
    return parse_system_settings(data, origin=ORIGIN)


def widget(name: str = "w") -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}}


def test_an_empty_map_is_sluices_defaults() -> None:
    settings = parse_keys({})
    assert (settings.tracking, settings.ignore_differences, settings.notices) == (None, (), ())
    assert (settings.exclusions, settings.inclusions, settings.ignore_status) == ((), (), True)
    assert assess(widget(), customizations=settings.health) is None


def test_keys_of_other_parts_of_argo_cd_are_left_alone() -> None:
    settings = parse_keys({"url": "https://argo.example", "dex.config": "connectors: [", "x": "1"})
    assert settings == SystemSettings(health=settings.health, actions=settings.actions)


@pytest.mark.parametrize("method", list(TrackingMethod), ids=lambda m: m.value)
def test_tracking_method(method: TrackingMethod) -> None:
    settings = parse_keys({"application.resourceTrackingMethod": method.value})
    assert settings.tracking is method
    assert settings.compare_settings(settings.tracking).tracking is method


def test_a_configured_lua_check_decides_the_health_of_its_kind() -> None:
    settings = parse_keys({f"{HEALTH}example.com_Widget": DEGRADED_LUA})
    assert assess(widget("blue"), customizations=settings.health) == HealthStatus(
        HealthStatusCode.DEGRADED, "widget blue"
    )
    assert settings.configured_health == ("example.com/Widget",)
    assert settings.compare_settings(TrackingMethod.ANNOTATION).health is settings.health


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        pytest.param(
            f"{IGNORE}apps_Deployment",
            "jsonPointers: [/spec/replicas]",
            ResourceIgnoreDifferences(
                kind="Deployment", group="apps", json_pointers=["/spec/replicas"]
            ),
            id="group-kind",
        ),
        pytest.param(
            f"{IGNORE}Service",
            "jqPathExpressions: ['.spec.clusterIP']",
            ResourceIgnoreDifferences(kind="Service", jq_path_expressions=[".spec.clusterIP"]),
            id="core-kind",
        ),
        pytest.param(
            f"{IGNORE}all",
            "managedFieldsManagers: [kube-controller-manager]",
            ResourceIgnoreDifferences(
                kind="*", group="*", managed_fields_managers=["kube-controller-manager"]
            ),
            id="all-kinds",
        ),
    ],
)
def test_system_ignore_differences_rules(
    key: str, value: str, expected: ResourceIgnoreDifferences
) -> None:
    assert parse_keys({key: value}).ignore_differences == (expected,)


def test_the_all_rule_comes_first() -> None:
    settings = parse_keys(
        {f"{IGNORE}apps_Deployment": "jsonPointers: [/a]", f"{IGNORE}all": "jsonPointers: [/b]"}
    )
    assert [r.kind for r in settings.ignore_differences] == ["*", "Deployment"]


def test_exclusions_and_inclusions() -> None:
    settings = parse_keys(
        {
            "resource.exclusions": "- apiGroups: [cilium.io]\n  kinds: [CiliumIdentity]\n",
            "resource.inclusions": "- apiGroups: ['*']\n  clusters: [https://kubernetes.default.svc]",
        }
    )
    assert settings.exclusions == (
        ResourceExclusion(api_groups=("cilium.io",), kinds=("CiliumIdentity",)),
    )
    assert settings.inclusions == (ResourceExclusion(clusters=("https://kubernetes.default.svc",)),)


@pytest.mark.parametrize(
    ("field", "ignore_status", "crd_rule"),
    [
        pytest.param("all", True, False, id="all"),
        pytest.param("crd", False, True, id="crd-only"),
        pytest.param("off", False, False, id="off"),
    ],
)
def test_ignore_resource_status_field(field: str, ignore_status: bool, crd_rule: bool) -> None:
    settings = parse_keys({"resource.compareoptions": f"ignoreResourceStatusField: {field}"})
    assert settings.ignore_status is ignore_status
    kinds = [r.kind for r in settings.ignore_differences]
    assert kinds == (["CustomResourceDefinition"] if crd_rule else [])


@pytest.mark.parametrize(
    ("key", "value", "notice"),
    [
        pytest.param(
            "resource.customizations",
            "apps/Deployment:\n  knownTypeFields: '[]'",
            "knownTypeFields",
            id="single-key-form-known-type-fields",
        ),
        pytest.param(
            "resource.compareoptions",
            "ignoreAggregatedRoles: true",
            "ignoreAggregatedRoles: Sluice does not act on it",
            id="aggregated-roles",
        ),
    ],
)
def test_what_sluice_does_not_act_on_is_noticed_not_skipped(
    key: str, value: str, notice: str
) -> None:
    (found,) = parse_keys({key: value}).notices
    assert key in found and notice in found


BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, c in zip("abcdefg", "bcdefgh", strict=True)
)


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        pytest.param(
            f"{HEALTH}example.com_Widget",
            "return {status = ",
            f"{HEALTH}example.com_Widget: is not valid Lua",
            id="invalid-lua",
        ),
        pytest.param(
            f"{HEALTH}example.com_Widget",
            "  ",
            f"{HEALTH}example.com_Widget: is empty",
            id="empty-lua",
        ),
        pytest.param(
            "application.resourceTrackingMethod",
            "labels",
            "application.resourceTrackingMethod: 'labels' is not one of annotation, label",
            id="unknown-tracking-method",
        ),
        pytest.param(
            f"{IGNORE}apps_Deployment",
            "jsonPointers: [spec/replicas]",
            f"{IGNORE}apps_Deployment.jsonPointers[0]: JSON pointer 'spec/replicas' must start",
            id="pointer-without-slash",
        ),
        pytest.param(
            f"{IGNORE}apps_Deployment",
            "jsonPointer: [/spec/replicas]",
            f"{IGNORE}apps_Deployment: unknown field(s) jsonPointer; expected jsonPointers",
            id="misspelt-rule-field",
        ),
        pytest.param(
            f"{IGNORE}apps_Deployment",
            "jqPathExpressions: ['def f: .; f']",
            f"{IGNORE}apps_Deployment.jqPathExpressions[0]",
            id="disallowed-jq",
        ),
        pytest.param(
            f"{IGNORE}apps_Deployment_extra",
            "jsonPointers: [/a]",
            f"{IGNORE}apps_Deployment_extra: expected {IGNORE}<group>_<kind>",
            id="malformed-group-kind-key",
        ),
        pytest.param(
            "resource.exclusions",
            "apiGroups: [x]",
            "resource.exclusions: must be a YAML list",
            id="exclusions-not-a-list",
        ),
        pytest.param(
            "resource.inclusions",
            "- kinds: Deployment",
            "resource.inclusions[0].kinds: must be a list of strings",
            id="inclusion-kinds-not-a-list",
        ),
        pytest.param(
            "resource.exclusions",
            "- [unclosed",
            "resource.exclusions: is not valid YAML (line 1)",
            id="invalid-yaml",
        ),
        pytest.param(f"{IGNORE}all", BOMB, f"{IGNORE}all: is not valid YAML", id="alias-bomb"),
        pytest.param(
            "resource.compareoptions",
            "ignoreResourceStatusField: some",
            "resource.compareoptions.ignoreResourceStatusField: 'some' is not one of",
            id="unknown-status-field-value",
        ),
        pytest.param(
            f"{IGNORE}all", "x" * 300_000, f"{IGNORE}all: is over 256 KiB", id="oversized-value"
        ),
    ],
)
def test_a_bad_key_refuses_the_map_naming_the_key(key: str, value: str, problem: str) -> None:
    with pytest.raises(SystemSettingsError) as refused:
        parse_keys({key: value})
    (found,) = refused.value.problems
    assert found.startswith(problem), found
    assert str(refused.value).startswith(f"{ORIGIN} is refused (1 problem(s)): {key}")


def test_every_bad_key_is_listed_at_once() -> None:
    with pytest.raises(SystemSettingsError) as refused:
        parse_keys(
            {
                f"{HEALTH}Widget": "not lua at all (",
                "application.resourceTrackingMethod": "uid",
                "url": "https://fine.example",
            }
        )
    assert [p.split(":")[0] for p in refused.value.problems] == [
        "application.resourceTrackingMethod",
        f"{HEALTH}Widget",
    ]


@pytest.mark.parametrize(("value", "seconds"), [("30", 30.0), (" 0 ", 0.0), ("2.5", 2.5)])
def test_the_repository_error_grace_period(value: str, seconds: float) -> None:
    settings = parse_keys({"controller.repo.error.grace.period.seconds": value})
    assert settings.repo_error_grace == seconds
    assert parse_keys({}).repo_error_grace is None


@pytest.mark.parametrize("value", ["-1", "three minutes", "1e9", "nan"])
def test_a_grace_period_that_is_not_seconds_is_refused(value: str) -> None:
    with pytest.raises(SystemSettingsError) as refused:
        parse_keys({"controller.repo.error.grace.period.seconds": value})
    assert refused.value.problems == (
        f"controller.repo.error.grace.period.seconds: {value!r} is not a number of seconds "
        "from 0 to 604800",
    )


DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop"},
    "spec": {"replicas": 1},
}
SINGLE_KEY = """
apps/Deployment:
  health.lua: |
    return {status = "Suspended", message = "single-key form"}
  actions: |
    discovery.lua: |
      return {nudge = {}}
    definitions:
    - name: nudge
      action.lua: |
        obj.spec.replicas = 7
        return obj
  ignoreDifferences: |
    jsonPointers: [/spec/replicas]
"""


def test_the_single_key_form_gives_health_actions_and_ignore_rules() -> None:
    settings = parse_keys({"resource.customizations": SINGLE_KEY})
    assert assess(DEPLOYMENT, customizations=settings.health) == HealthStatus(
        HealthStatusCode.SUSPENDED, "single-key form"
    )
    assert [a.name for a in settings.actions.offered(DEPLOYMENT)] == ["nudge"]
    [rule] = settings.ignore_differences
    assert (rule.kind, rule.json_pointers) == ("Deployment", ["/spec/replicas"])


def test_the_per_key_form_wins_over_the_single_key_form() -> None:
    settings = parse_keys(
        {
            "resource.customizations": SINGLE_KEY,
            "resource.customizations.health.apps_Deployment": 'return {status = "Healthy"}',
            "resource.customizations.actions.apps_Deployment": (
                "discovery.lua: return {poke = {}}\n"
                "definitions: [{name: poke, 'action.lua': 'return obj'}]"
            ),
        }
    )
    assert assess(DEPLOYMENT, customizations=settings.health) == HealthStatus(
        HealthStatusCode.HEALTHY
    )
    assert [a.name for a in settings.actions.offered(DEPLOYMENT)] == ["poke"]


def test_a_configured_application_check_wins_over_the_built_in_one() -> None:
    settings = parse_keys(
        {
            "resource.customizations.health.argoproj.io_Application": (
                'return {status = "Degraded", message = "mine"}'
            )
        }
    )
    child = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "child", "namespace": "argocd"},
        "status": {"health": {"status": "Healthy"}},
    }
    assert assess(child) == HealthStatus(HealthStatusCode.HEALTHY)
    assert assess(child, customizations=settings.health) == HealthStatus(
        HealthStatusCode.DEGRADED, "mine"
    )


def test_a_bad_single_key_entry_refuses_the_map_naming_it() -> None:
    with pytest.raises(SystemSettingsError, match=r"resource.customizations\[apps/Deployment\]"):
        parse_keys({"resource.customizations": "apps/Deployment:\n  health.lua: 'return {'"})


def test_the_reconciliation_timeouts_are_go_durations() -> None:
    settings = parse_keys(
        {
            "timeout.reconciliation": "180s",
            "timeout.reconciliation.jitter": "0",
            "timeout.hard.reconciliation": "1h30m",
        }
    )
    assert settings.resync == {"period": 180.0, "jitter": 0.0, "hard_period": 5400.0}
    assert parse_keys({"timeout.reconciliation": "300"}).resync == {"period": 300.0}
    assert parse_keys({}).resync == {}


@pytest.mark.parametrize("value", ["-5s", "soon", "9999h"])
def test_a_reconciliation_timeout_that_is_not_a_duration_is_refused(value: str) -> None:
    with pytest.raises(SystemSettingsError) as refused:
        parse_keys({"timeout.hard.reconciliation": value})
    (problem,) = refused.value.problems
    assert problem.startswith("timeout.hard.reconciliation: ")
