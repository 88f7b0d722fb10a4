"""AppProject orphanedResources: the policy, what counts as an orphan, the warning."""

import pytest

from app.engine.orphans import OrphanIgnore, OrphanPolicy, orphan_policy, orphan_warning, orphans
from app.model.errors import SpecError
from app.model.resource import ResourceKey


def key(kind: str, name: str, group: str = "", namespace: str = "shop") -> ResourceKey:
    return ResourceKey(group, kind, namespace, name)


def test_the_policy_as_a_project_writes_it() -> None:
    assert orphan_policy(None) is None, "unset: orphans are not looked for"
    assert orphan_policy({}) == OrphanPolicy(warn=False)
    assert orphan_policy({"warn": True, "ignore": [{"kind": "Secret"}, {"group": "apps"}]}) == (
        OrphanPolicy(True, (OrphanIgnore(kind="Secret"), OrphanIgnore(group="apps")))
    )


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ({"warn": "yes"}, "spec.orphanedResources.warn"),
        ({"ignore": "Secret"}, "spec.orphanedResources.ignore"),
        ({"ignore": [{"kind": 3}]}, "spec.orphanedResources.ignore[0]"),
    ],
)
def test_an_unreadable_policy_names_the_field(value: dict[str, object], field: str) -> None:
    with pytest.raises(SpecError) as refused:
        orphan_policy(value)
    assert refused.value.field == field


def test_known_objects_and_ignored_ones_are_not_orphans() -> None:
    policy = OrphanPolicy(
        True, (OrphanIgnore(kind="Secret"), OrphanIgnore(group="apps", name="legacy-*"))
    )
    candidates = [
        key("ConfigMap", "stray"),
        key("ServiceAccount", "default"),
        key("ConfigMap", "kube-root-ca.crt"),
        key("Service", "kubernetes", namespace="default"),
        key("Secret", "token"),
        key("Deployment", "legacy-api", group="apps"),
        key("Deployment", "api", group="apps"),
    ]
    assert orphans(candidates, policy) == [
        key("ConfigMap", "stray"),
        key("Deployment", "api", "apps"),
    ]


def test_the_warning_only_when_asked_and_found() -> None:
    assert orphan_warning(2, OrphanPolicy(warn=True)) == "Application has 2 orphaned resources"
    assert orphan_warning(0, OrphanPolicy(warn=True)) == ""
    assert orphan_warning(2, OrphanPolicy(warn=False)) == ""
    assert orphan_warning(2, None) == ""
