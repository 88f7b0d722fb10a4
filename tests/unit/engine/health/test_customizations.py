"""Where custom health checks come from and which one decides a kind (SEMANTICS §5)."""

from pathlib import Path

import pytest

from app.engine.health.customizations import (
    CustomCheck,
    HealthCustomizations,
    KindPattern,
    config_pattern,
    load_tree,
)
from app.engine.health.lua_sandbox import compile_check
from app.model.errors import SpecError
from app.model.health import HealthStatusCode
from app.model.resource import GroupKind

PREFIX = "resource.customizations.health."


def script(status: str, message: str) -> str:
    return f'return {{status = "{status}", message = "{message}"}}'


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        pytest.param(
            "cert-manager.io_Certificate",
            KindPattern("cert-manager.io", "Certificate"),
            id="group-underscore-kind",
        ),
        pytest.param("Service", KindPattern("", "Service"), id="core-group-is-the-kind-alone"),
        pytest.param(
            "*.crossplane.io_*", KindPattern("*.crossplane.io", "*"), id="star-is-a-wildcard"
        ),
    ],
)
def test_config_keys_name_a_group_and_kind(key: str, expected: KindPattern) -> None:
    assert config_pattern(PREFIX + key) == expected


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        pytest.param("", "expected resource.customizations.health.<group>_<kind>", id="empty"),
        pytest.param(
            "a_b_C", "expected resource.customizations.health.<group>_<kind>", id="three-parts"
        ),
        pytest.param("Example.COM_Widget", "is not an API group", id="uppercase-group"),
        pytest.param("example.com_wid-get", "is not a kind", id="dash-in-kind"),
    ],
)
def test_malformed_config_keys_are_refused_naming_the_key(key: str, problem: str) -> None:
    with pytest.raises(SpecError) as raised:
        HealthCustomizations.from_config({PREFIX + key: script("Healthy", "")})
    assert raised.value.field == PREFIX + key
    assert problem in raised.value.problem


def test_empty_script_is_refused_naming_the_key() -> None:
    with pytest.raises(SpecError, match="is empty") as raised:
        HealthCustomizations.from_config({PREFIX + "example.com_Widget": "  \n"})
    assert raised.value.field == PREFIX + "example.com_Widget"


def test_a_value_that_is_not_text_is_refused_naming_the_key() -> None:
    with pytest.raises(SpecError, match=r"must be a health\.lua script, got dict") as raised:
        HealthCustomizations.from_config({PREFIX + "example.com_Widget": {"health.lua": "x"}})
    assert raised.value.field == PREFIX + "example.com_Widget"


def test_invalid_lua_is_refused_naming_the_key_and_line() -> None:
    key = PREFIX + "example.com_Widget"
    with pytest.raises(SpecError) as raised:
        HealthCustomizations.from_config({key: "return {status = "})
    assert raised.value.field == key
    assert raised.value.problem.startswith("is not valid Lua: line 1:")


def test_other_customization_keys_are_not_health_checks() -> None:
    found = HealthCustomizations.from_config(
        {
            "resource.customizations.ignoreDifferences.apps_Deployment": "jsonPointers: [/x]",
            "resource.customizations.useOpenLibs.example.com_Widget": "true",
            "url": "https://sluice.example.com",
        }
    )
    assert found.checks == HealthCustomizations.packaged().checks


def test_configured_check_wins_over_the_packaged_tree() -> None:
    configured = HealthCustomizations.from_config(
        {PREFIX + "cert-manager.io_Certificate": script("Suspended", "configured")}
    )
    check = configured.lookup(GroupKind("cert-manager.io", "Certificate"))
    assert check is not None
    assert check.origin == PREFIX + "cert-manager.io_Certificate"
    assert check({"metadata": {"name": "c"}}).message == "configured"


def test_exact_config_key_wins_over_a_wildcard_whatever_the_key_order() -> None:
    configured = HealthCustomizations.from_config(
        {
            PREFIX + "*.example.com_*": script("Degraded", "wildcard"),
            PREFIX + "widgets.example.com_Widget": script("Healthy", "exact"),
            PREFIX + "*_*": script("Unknown", "anything"),
        }
    )
    exact = configured.lookup(GroupKind("widgets.example.com", "Widget"))
    other = configured.lookup(GroupKind("gadgets.example.com", "Gadget"))
    anything = configured.lookup(GroupKind("apps", "Deployment"))
    assert exact is not None and exact.origin.endswith("widgets.example.com_Widget")
    assert other is not None and other.origin.endswith("*.example.com_*")
    assert anything is not None and anything.origin.endswith("*_*")


def test_kinds_without_a_lua_check_find_none_and_the_answer_is_cached() -> None:
    packaged = HealthCustomizations.packaged()
    kind = GroupKind("apps", "Deployment")
    assert packaged.lookup(kind) is None
    certificate = GroupKind("cert-manager.io", "Certificate")
    assert packaged.lookup(certificate) is packaged.lookup(certificate)


def write_check(root: Path, relative: str, body: str) -> None:
    directory = root / relative
    directory.mkdir(parents=True)
    (directory / "health.lua").write_text(body)


def test_tree_layout_group_kind_core_kind_and_underscore_wildcards(tmp_path: Path) -> None:
    write_check(tmp_path, "example.com/Widget", script("Healthy", ""))
    write_check(tmp_path, "ConfigMap", script("Healthy", ""))
    write_check(tmp_path, "_.crossplane.io/_", script("Healthy", ""))
    write_check(tmp_path, "example.com/Widget/testdata", "-- not a check")
    entries = {str(entry.pattern): entry for entry in load_tree(tmp_path)}
    assert set(entries) == {"ConfigMap", "*.crossplane.io/*", "example.com/Widget"}
    wildcard = entries["*.crossplane.io/*"]
    assert wildcard.origin == "resource_customizations/_.crossplane.io/_/health.lua"
    assert wildcard.pattern.matches(GroupKind("s3.aws.crossplane.io", "Bucket"))
    assert not wildcard.pattern.matches(GroupKind("crossplane.example.com", "Bucket"))
    assert entries["ConfigMap"].pattern.matches(GroupKind("", "ConfigMap"))
    assert not entries["ConfigMap"].pattern.matches(GroupKind("example.com", "ConfigMap"))


def test_tree_nested_too_deep_is_refused_naming_the_path(tmp_path: Path) -> None:
    write_check(tmp_path, "example.com/v1/Widget", script("Healthy", ""))
    with pytest.raises(SpecError) as raised:
        load_tree(tmp_path)
    assert raised.value.field == "resource_customizations/example.com/v1/Widget/health.lua"
    assert "expected resource_customizations/<group>/<kind>/health.lua" in raised.value.problem


def test_packaged_flux_wildcard_covers_every_toolkit_kind() -> None:
    packaged = HealthCustomizations.packaged()
    for group_kind in (
        GroupKind("helm.toolkit.fluxcd.io", "HelmRelease"),
        GroupKind("kustomize.toolkit.fluxcd.io", "Kustomization"),
        GroupKind("source.toolkit.fluxcd.io", "GitRepository"),
    ):
        check = packaged.lookup(group_kind)
        assert check is not None
        assert check.origin == "resource_customizations/_.toolkit.fluxcd.io/_/health.lua"
    assert packaged.lookup(GroupKind("toolkit.fluxcd.io.evil.com", "X")) is None


def test_configured_wildcard_outranks_every_tree_check() -> None:
    configured = HealthCustomizations.from_config({PREFIX + "*_*": script("Missing", "mine")})
    check = configured.lookup(GroupKind("argoproj.io", "Rollout"))
    assert check is not None
    assert check({"metadata": {}}).status is HealthStatusCode.MISSING


def test_exact_tree_checks_come_before_wildcards_and_specific_wildcards_first() -> None:
    def custom(group: str, kind: str) -> CustomCheck:
        return CustomCheck(KindPattern(group, kind), compile_check(script("Healthy", ""), group))

    found = HealthCustomizations(
        tree=[custom("*", "*"), custom("*.example.com", "*"), custom("a.example.com", "Widget")]
    )
    assert [str(c.pattern) for c in found.checks] == [
        "a.example.com/Widget",
        "*.example.com/*",
        "*/*",
    ]
