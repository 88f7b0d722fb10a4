"""`app set`/`app unset` spec changes, as argocd's flags make them."""

import argparse
from typing import Any

import pytest

from app.cli import app_changes
from app.cli.client import CliError
from app.cli.spec_edits import apply_set, apply_unset


def flags(kind: str, *argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    (app_changes._set_flags if kind == "set" else app_changes._unset_flags)(parser)
    return parser.parse_args(list(argv))


def spec() -> dict[str, Any]:
    return {
        "source": {"repoURL": "https://g/x.git", "path": "a"},
        "destination": {"server": "https://kubernetes.default.svc", "namespace": "n"},
    }


def test_set_helm_parameters_replace_by_name_and_keep_others() -> None:
    s = spec()
    apply_set(s, flags("set", "--helm-set", "a=1", "--helm-set", "b=2"))
    apply_set(
        s,
        flags(
            "set",
            "--helm-set",
            "a=3",
            "--helm-set-string",
            "c=4",
            "--values",
            "v.yaml",
            "--release-name",
            "r",
        ),
    )
    assert s["source"]["helm"] == {
        "parameters": [
            {"name": "b", "value": "2"},
            {"name": "a", "value": "3"},
            {"name": "c", "value": "4", "forceString": True},
        ],
        "valueFiles": ["v.yaml"],
        "releaseName": "r",
    }
    apply_unset(s, flags("unset", "-p", "a", "-p", "b", "-p", "c", "--values", "v.yaml"))
    assert s["source"]["helm"] == {"releaseName": "r"}


def test_set_destination_name_replaces_the_server() -> None:
    s = spec()
    apply_set(s, flags("set", "--dest-name", "prod", "--project", "team"))
    assert s["destination"] == {"name": "prod", "namespace": "n"} and s["project"] == "team"


def test_sync_policy_none_drops_automated_and_self_heal_needs_it() -> None:
    s = spec()
    apply_set(s, flags("set", "--sync-policy", "automated", "--auto-prune"))
    assert s["syncPolicy"] == {"automated": {"prune": True}}
    apply_set(s, flags("set", "--sync-policy", "none"))
    assert "syncPolicy" not in s
    with pytest.raises(CliError, match="--self-heal: needs --sync-policy automated"):
        apply_set(s, flags("set", "--self-heal"))


def test_kustomize_images_and_replicas_replace_by_name() -> None:
    s = spec()
    apply_set(s, flags("set", "--kustomize-image", "nginx:1", "--kustomize-replica", "web=2"))
    apply_set(s, flags("set", "--kustomize-image", "nginx:2", "--kustomize-replica", "web=3"))
    assert s["source"]["kustomize"] == {
        "images": ["nginx:2"],
        "replicas": [{"name": "web", "count": 3}],
    }
    with pytest.raises(CliError, match="count must be a number"):
        apply_set(s, flags("set", "--kustomize-replica", "web=many"))


def test_source_position_picks_one_of_several() -> None:
    s = {"sources": [{"repoURL": "a"}, {"repoURL": "b"}], "destination": {}}
    apply_set(s, flags("set", "--source-position", "2", "--revision", "v2"))
    assert s["sources"][1]["targetRevision"] == "v2" and "targetRevision" not in s["sources"][0]
    with pytest.raises(CliError, match="--source-position"):
        apply_set(s, flags("set", "--source-position", "3", "--path", "x"))
