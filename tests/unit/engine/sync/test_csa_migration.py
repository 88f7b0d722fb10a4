"""ClientSideApplyMigration: which managedFields are taken over, and the CSA original."""

from typing import Any

from app.engine.sync.csa_migration import migrated_managed_fields, original_from_managers
from app.engine.sync.options import OptionScopes, parse_app_options, parse_resource_options

NOW = "2026-01-02T03:04:05Z"


def entry(manager: str, operation: str, fields: dict[str, Any], **more: str) -> dict[str, Any]:
    return {
        "manager": manager,
        "operation": operation,
        "apiVersion": "v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": fields,
        **more,
    }


def config_map(*managed: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": "shop", "managedFields": list(managed)},
        "data": {"colour": "blue", "size": "large", "owner": "ops"},
    }


COLOUR = {"f:data": {"f:colour": {}}}
SIZE = {"f:data": {"f:size": {}}}
OWNER = {"f:data": {"f:owner": {}}}


def test_argo_cd_and_kubectl_client_side_entries_become_sluices_apply() -> None:
    live = config_map(
        entry("argocd-controller", "Apply", COLOUR),
        entry("kubectl-client-side-apply", "Update", SIZE),
        entry("ops-bot", "Update", OWNER),
        entry("argocd-controller", "Update", {"f:status": {}}, subresource="status"),
    )
    managed = migrated_managed_fields(live, manager="sluice", now=NOW)
    assert managed is not None
    ours, *kept = managed
    assert (ours["manager"], ours["operation"], ours["time"]) == ("sluice", "Apply", NOW)
    assert ours["fieldsV1"] == {"f:data": {"f:colour": {}, "f:size": {}}}
    assert [(e["manager"], e.get("subresource", "")) for e in kept] == [
        ("ops-bot", ""),
        ("argocd-controller", "status"),
    ], "other managers and subresources are left alone"


def test_nothing_to_take_over() -> None:
    live = config_map(entry("sluice", "Apply", COLOUR), entry("kubectl", "Apply", SIZE))
    assert migrated_managed_fields(live, manager="sluice", now=NOW) is None


def test_sluices_existing_apply_entry_is_kept_and_widened() -> None:
    live = config_map(entry("sluice", "Apply", OWNER), entry("argocd-controller", "Update", SIZE))
    managed = migrated_managed_fields(live, manager="sluice", now=NOW)
    assert managed is not None and len(managed) == 1
    assert managed[0]["fieldsV1"] == {"f:data": {"f:owner": {}, "f:size": {}}}


def test_the_client_side_original_is_what_argo_cds_apply_owned() -> None:
    live = config_map(
        entry("argocd-controller", "Apply", {"f:data": {"f:colour": {}, "f:size": {}}}),
        entry("ops-bot", "Update", OWNER),
    )
    original = original_from_managers(live)
    assert original is not None
    assert original["data"] == {"colour": "blue", "size": "large"}
    assert original_from_managers(config_map(entry("ops-bot", "Update", OWNER))) is None


def test_the_option_is_on_unless_the_app_or_the_resource_says_false() -> None:
    assert OptionScopes(parse_app_options([])).client_side_apply_migration
    off = parse_app_options(["ClientSideApplyMigration=false"])
    assert not OptionScopes(off).client_side_apply_migration
    annotated = {
        "metadata": {
            "annotations": {"argocd.argoproj.io/sync-options": "ClientSideApplyMigration=false"}
        }
    }
    resource = parse_resource_options(annotated)
    assert not OptionScopes(parse_app_options([]), resource).client_side_apply_migration
