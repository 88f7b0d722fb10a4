"""Server-side apply: ownership, conflicts, force, pruning, shared ownership, create."""

import copy
from typing import Any

import pytest

from app.engine.merge import (
    ApplyConflict,
    Conflict,
    FieldSet,
    GroupVersionKind,
    PatchError,
    record_update,
    server_side_apply,
)

DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
T0, T1, T2 = "2024-01-01T00:00:00Z", "2024-01-01T00:01:00Z", "2024-01-01T00:02:00Z"


def config(replicas: int = 2, **extra: Any) -> dict[str, Any]:
    """A Deployment configuration; `extra` replaces top-level spec fields."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {"name": "web", "image": "nginx", "ports": [{"containerPort": 80}]}
                    ]
                },
            },
            **extra,
        },
    }


def apply(
    live: dict[str, Any] | None,
    applied: dict[str, Any],
    manager: str = "argocd",
    *,
    force: bool = False,
    now: str = T0,
) -> dict[str, Any]:
    return server_side_apply(live, applied, manager=manager, force=force, gvk=DEPLOYMENT, now=now)


def owned(obj: dict[str, Any], manager: str, operation: str = "Apply") -> FieldSet:
    for entry in obj["metadata"].get("managedFields", []):
        if entry["manager"] == manager and entry["operation"] == operation:
            return FieldSet.from_fields_v1(entry["fieldsV1"])
    return FieldSet()


def managers(obj: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["manager"], e["operation"]) for e in obj["metadata"].get("managedFields", [])]


def without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out["metadata"].pop("managedFields", None)
    return out


def test_apply_creates_the_object_and_its_apply_entry() -> None:
    created = apply(None, config())
    assert without_managed_fields(created) == config()
    assert created["metadata"]["managedFields"] == [
        {
            "manager": "argocd",
            "operation": "Apply",
            "apiVersion": "apps/v1",
            "time": T0,
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:metadata": {"f:labels": {"f:app": {}}},
                "f:spec": {
                    "f:replicas": {},
                    "f:selector": {},
                    "f:template": {
                        "f:metadata": {"f:labels": {"f:app": {}}},
                        "f:spec": {
                            "f:containers": {
                                'k:{"name":"web"}': {
                                    ".": {},
                                    "f:image": {},
                                    "f:name": {},
                                    "f:ports": {
                                        'k:{"containerPort":80,"protocol":"TCP"}': {
                                            ".": {},
                                            "f:containerPort": {},
                                        }
                                    },
                                }
                            }
                        },
                    },
                },
            },
        }
    ]


def test_reapplying_the_same_configuration_changes_nothing() -> None:
    created = apply(None, config())
    again = apply(created, config(), now=T1)
    assert again == created


def scaled_by_hpa(replicas: int = 5) -> dict[str, Any]:
    created = apply(None, config())
    scaled = copy.deepcopy(created)
    scaled["spec"]["replicas"] = replicas
    return record_update(created, scaled, manager="hpa", gvk=DEPLOYMENT, now=T1)


def test_changing_a_field_another_manager_owns_is_a_conflict() -> None:
    live = scaled_by_hpa()
    with pytest.raises(ApplyConflict) as raised:
        apply(live, config(replicas=3), now=T2)
    assert raised.value.conflicts == [
        Conflict("hpa", ".spec.replicas", operation="Update", api_version="apps/v1")
    ]
    assert str(raised.value) == (
        'Apply failed with 1 conflict: conflict with "hpa" using apps/v1: .spec.replicas'
    )
    assert raised.value.conflicts[0].message == 'conflict with "hpa" using apps/v1'


def test_force_takes_ownership() -> None:
    live = scaled_by_hpa()
    forced = apply(live, config(replicas=3), force=True, now=T2)
    assert forced["spec"]["replicas"] == 3
    assert ("hpa", "Update") not in managers(forced)
    assert ".spec.replicas" in owned(forced, "argocd").paths()


def test_applying_the_live_value_shares_ownership_without_conflict() -> None:
    live = scaled_by_hpa(replicas=5)
    shared = apply(live, config(replicas=5), now=T2)
    assert ".spec.replicas" in owned(shared, "argocd").paths()
    assert ".spec.replicas" in owned(shared, "hpa", "Update").paths()


def test_not_applying_a_field_another_manager_owns_leaves_it_alone() -> None:
    live = scaled_by_hpa(replicas=5)
    without_replicas = config()
    del without_replicas["spec"]["replicas"]
    result = apply(live, without_replicas, now=T2)
    assert result["spec"]["replicas"] == 5
    assert ".spec.replicas" not in owned(result, "argocd").paths()


def test_conflicts_with_several_managers_are_all_reported() -> None:
    live = scaled_by_hpa()
    labelled = copy.deepcopy(live)
    labelled["metadata"]["labels"]["app"] = "other"
    live = record_update(live, labelled, manager="kubectl-label", gvk=DEPLOYMENT, now=T1)
    with pytest.raises(ApplyConflict) as raised:
        apply(live, config(replicas=3), now=T2)
    assert [(c.manager, c.field) for c in raised.value.conflicts] == [
        ("hpa", ".spec.replicas"),
        ("kubectl-label", ".metadata.labels.app"),
    ]
    assert str(raised.value) == (
        "Apply failed with 2 conflicts: "
        'conflicts with "hpa" using apps/v1:\n- .spec.replicas\n'
        'conflicts with "kubectl-label" using apps/v1:\n- .metadata.labels.app'
    )


def test_conflict_with_another_applier_names_it_without_version() -> None:
    live = apply(None, config(), manager="team-a")
    with pytest.raises(ApplyConflict) as raised:
        apply(live, config(replicas=9), manager="team-b")
    assert str(raised.value).endswith('conflict with "team-a": .spec.replicas')


STOPPED_APPLYING = [
    pytest.param(
        lambda c: c["metadata"].pop("labels"),
        lambda o: "labels" not in o["metadata"],
        id="label-map-removed",
    ),
    pytest.param(
        lambda c: c["spec"].pop("replicas"),
        lambda o: "replicas" not in o["spec"],
        id="scalar-removed",
    ),
    pytest.param(
        lambda c: c["spec"]["template"]["spec"]["containers"][0].pop("ports"),
        lambda o: "ports" not in o["spec"]["template"]["spec"]["containers"][0],
        id="keyed-list-item-removed",
    ),
    pytest.param(
        lambda c: (
            c["spec"]["template"]["spec"]["containers"].append({"name": "b", "image": "b"})
            or c["spec"]["template"]["spec"]["containers"].pop(0)
        ),
        lambda o: [x["name"] for x in o["spec"]["template"]["spec"]["containers"]] == ["b"],
        id="whole-container-replaced",
    ),
]


@pytest.mark.parametrize(("edit", "check"), STOPPED_APPLYING)
def test_fields_a_manager_stops_applying_are_removed(edit: Any, check: Any) -> None:
    live = apply(None, config())
    newer = config()
    edit(newer)
    result = apply(live, newer, now=T1)
    assert check(result)
    assert owned(result, "argocd") == FieldSet.from_object(
        newer, DEPLOYMENT
    ) - FieldSet.from_fields_v1({"f:apiVersion": {}, "f:kind": {}, "f:metadata": {"f:name": {}}})


def test_fields_another_applier_also_owns_survive_when_one_stops() -> None:
    live = apply(None, config(), manager="team-a")
    live = apply(live, config(), manager="team-b", now=T1)
    smaller = config()
    del smaller["spec"]["replicas"]
    result = apply(live, smaller, manager="team-a", now=T2)
    assert result["spec"]["replicas"] == 2
    assert ".spec.replicas" in owned(result, "team-b").paths()
    assert ".spec.replicas" not in owned(result, "team-a").paths()


def test_fields_set_by_updates_survive_an_applier_that_never_owned_them() -> None:
    live = apply(None, config())
    annotated = copy.deepcopy(live)
    annotated["metadata"]["annotations"] = {"note": "x"}
    live = record_update(live, annotated, manager="kubectl-annotate", gvk=DEPLOYMENT, now=T1)
    result = apply(live, config(), now=T2)
    assert result["metadata"]["annotations"] == {"note": "x"}


def test_an_object_without_managed_fields_is_owned_before_the_first_apply() -> None:
    untracked = without_managed_fields(apply(None, config(replicas=4)))
    with pytest.raises(ApplyConflict) as raised:
        apply(untracked, config(replicas=1))
    assert [(c.manager, c.field) for c in raised.value.conflicts] == [
        ("before-first-apply", ".spec.replicas")
    ]
    taken = apply(untracked, config(replicas=1), force=True)
    assert ("before-first-apply", "Update") in managers(taken)


def test_keyed_lists_keep_live_items_and_the_applied_order() -> None:
    live = apply(None, config(), manager="injector")
    live = copy.deepcopy(live)
    containers = live["spec"]["template"]["spec"]["containers"]
    containers.append({"name": "sidecar", "image": "s"})
    applied = config()
    applied["spec"]["template"]["spec"]["containers"].insert(0, {"name": "init", "image": "i"})
    result = apply(live, applied, manager="argocd")
    names = [c["name"] for c in result["spec"]["template"]["spec"]["containers"]]
    assert names == ["init", "web", "sidecar"]


def test_null_in_a_configuration_clears_an_unowned_field_and_claims_it() -> None:
    live = copy.deepcopy(apply(None, config(), manager="creator"))
    live["spec"]["paused"] = True
    applied = config()
    applied["spec"]["paused"] = None
    result = apply(live, applied, manager="argocd")
    assert "paused" not in result["spec"]
    assert ".spec.paused" in owned(result, "argocd").paths()


def test_reset_fields_keep_their_live_value_and_owner() -> None:
    live = copy.deepcopy(apply(None, config()))
    live["status"] = {"replicas": 2}
    applied = {**config(), "status": {"replicas": 99}}
    result = server_side_apply(
        live,
        applied,
        manager="argocd",
        force=False,
        gvk=DEPLOYMENT,
        now=T1,
        reset=FieldSet.from_fields_v1({"f:status": {}}),
    )
    assert result["status"] == {"replicas": 2}
    assert not [p for p in owned(result, "argocd").paths() if p.startswith(".status")]


def test_subresource_is_part_of_the_manager_identity() -> None:
    live = apply(None, config())
    status = server_side_apply(
        live,
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web"},
            "status": {"replicas": 1},
        },
        manager="argocd",
        force=False,
        gvk=DEPLOYMENT,
        now=T1,
        subresource="status",
    )
    entries = [
        (e["manager"], e.get("subresource", "")) for e in status["metadata"]["managedFields"]
    ]
    assert entries == [("argocd", ""), ("argocd", "status")]


def test_custom_resources_replace_lists_whole() -> None:
    foo = GroupVersionKind("example.com", "v1", "Foo")
    base = {"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "f"}}
    live = server_side_apply(
        None,
        {**base, "spec": {"items": [{"name": "a"}]}},
        manager="m",
        force=False,
        gvk=foo,
        now=T0,
    )
    result = server_side_apply(
        live,
        {**base, "spec": {"items": [{"name": "b"}]}},
        manager="m",
        force=False,
        gvk=foo,
        now=T1,
    )
    assert result["spec"]["items"] == [{"name": "b"}]
    assert owned(result, "m").paths() == [".spec.items"]


def test_untouched_subtrees_are_shared_with_the_live_object() -> None:
    live = apply(None, config())
    result = apply(live, config(replicas=3), now=T1)
    assert result["spec"]["template"] is live["spec"]["template"]


@pytest.mark.parametrize(
    ("applied", "manager", "message"),
    [
        pytest.param(
            {**config(), "metadata": {"name": "web", "managedFields": [{}]}},
            "argocd",
            "metadata.managedFields: must be nil",
            id="managed-fields-in-configuration",
        ),
        pytest.param(config(), "", "a field manager is required", id="no-manager"),
        pytest.param(
            config(template={"spec": {"containers": [{"image": "x"}]}}),
            "argocd",
            "spec.template.spec.containers[0]: the item omits key field 'name'",
            id="item-without-key",
        ),
        pytest.param(
            config(template={"spec": {"containers": [{"name": "a"}, {"name": "a"}]}}),
            "argocd",
            'spec.template.spec.containers[1]: duplicate entries for [name="a"]',
            id="duplicate-item",
        ),
    ],
)
def test_configurations_the_api_server_refuses(
    applied: dict[str, Any], manager: str, message: str
) -> None:
    live = apply(None, config())
    before = copy.deepcopy(live)
    with pytest.raises(PatchError) as raised:
        server_side_apply(live, applied, manager=manager, force=False, gvk=DEPLOYMENT, now=T1)
    assert message in str(raised.value)
    assert live == before
