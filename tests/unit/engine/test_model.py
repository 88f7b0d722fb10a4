"""The Application model: Argo CD's documented examples parse; malformed ones name the field."""

import copy
import dataclasses
import importlib
import pkgutil
import typing
from pathlib import Path
from typing import Any

import pytest

from app import model
from app.engine.manifests import parse_manifests
from app.model.application import Application
from app.model.errors import SpecError
from app.model.health import HealthStatusCode
from app.model.project import AppProject
from app.model.sync import SyncStatusCode

FIXTURES = Path(__file__).parent / "fixtures" / "applications"
EXAMPLES = sorted(p.name for p in FIXTURES.glob("*.yaml"))


def load(name: str) -> dict[str, Any]:
    path = FIXTURES / name
    (doc,) = parse_manifests(path.read_text(), source=str(path))
    return doc


@pytest.mark.parametrize("name", EXAMPLES)
def test_documented_example_parses_and_round_trips(name: str) -> None:
    app = Application.from_dict(load(name))
    assert Application.from_dict(app.to_dict()) == app


def test_automated_with_prune_and_self_heal() -> None:
    app = Application.from_dict(load("automated-prune-selfheal.yaml"))
    automated = app.spec.automated
    assert automated is not None and automated.prune and automated.self_heal
    assert not automated.allow_empty
    assert app.spec.sync_options == [
        "Validate=false",
        "PrunePropagationPolicy=foreground",
        "PruneLast=true",
    ]
    assert app.metadata.finalizers == ["resources-finalizer.argocd.argoproj.io"]
    assert app.spec.history_limit == 10


def test_retry_with_backoff() -> None:
    app = Application.from_dict(load("retry-backoff.yaml"))
    assert app.spec.automated is not None, "automated: {} means enabled"
    retry = app.spec.sync_policy.retry if app.spec.sync_policy else None
    assert retry is not None and retry.limit == 5 and retry.refresh
    backoff = retry.effective_backoff
    assert (backoff.duration_seconds, backoff.factor, backoff.max_duration_seconds) == (5, 2, 180)
    assert app.spec.destination.name == "in-cluster"


def test_ignore_differences_with_pointers_jq_and_managers() -> None:
    app = Application.from_dict(load("ignore-differences.yaml"))
    first, second, third = app.spec.ignore_differences
    assert (first.group, first.kind, first.json_pointers) == (
        "apps",
        "Deployment",
        ["/spec/replicas"],
    )
    assert second.jq_path_expressions == [".webhooks[]?.clientConfig.caBundle"]
    assert (third.name, third.namespace) == ("guestbook-ui", "guestbook")
    assert third.managed_fields_managers == ["kube-controller-manager"]


def test_multiple_sources() -> None:
    app = Application.from_dict(load("multiple-sources.yaml"))
    assert app.spec.is_multi_source
    chart, values = app.spec.all_sources
    assert (chart.chart, chart.target_revision) == ("prometheus", "15.7.1")
    assert chart.helm == {"valueFiles": ["$values/charts/prometheus/values.yaml"]}
    assert (values.ref, values.revision_or_head) == ("values", "dev")


def test_create_namespace_with_managed_namespace_metadata() -> None:
    app = Application.from_dict(load("create-namespace.yaml"))
    policy = app.spec.sync_policy
    assert policy is not None and policy.managed_namespace_metadata is not None
    assert policy.managed_namespace_metadata.labels == {"any": "label", "you": "like"}
    assert policy.managed_namespace_metadata.annotations["annotations"] == "on-the-namespace"
    assert "CreateNamespace=true" in policy.sync_options


def test_helm_kustomize_and_directory_sources() -> None:
    helm = Application.from_dict(load("helm.yaml")).spec.all_sources[0]
    assert helm.helm is not None and helm.helm["releaseName"] == "my-release"
    kustomize = Application.from_dict(load("kustomize.yaml")).spec.all_sources[0]
    assert kustomize.kustomize is not None and kustomize.kustomize["namePrefix"] == "prod-"
    directory = Application.from_dict(load("directory.yaml")).spec.all_sources[0].directory
    assert directory is not None and directory.recurse and directory.include == "{*.yml,*.yaml}"


def test_unknown_fields_are_kept_and_status_parsed() -> None:
    doc = load("unknown-fields.yaml")
    app = Application.from_dict(doc)
    assert app.spec.extra == {"futureTopLevel": {"kept": True}}
    assert app.spec.destination.extra == {"futureDestinationField": "x"}
    assert app.spec.automated is None, "automated.enabled: false turns auto-sync off"
    assert app.status.sync.status is SyncStatusCode.SYNCED
    assert app.status.health.status is HealthStatusCode.HEALTHY
    assert app.to_dict() == doc, "a round trip loses nothing, unknown fields included"


def broken(path: str, value: Any) -> dict[str, Any]:
    doc = load("retry-backoff.yaml")
    *parents, last = path.split(".")
    node = doc
    for part in parents:
        node = node.setdefault(part, {})
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return doc


MALFORMED = [
    ("spec.destination", KeyError, "spec.destination: is required", "missing destination"),
    ("spec.source", KeyError, "spec: needs a source (or sources)", "missing source"),
    ("spec.source.repoURL", "  ", "spec.source.repoURL: must not be empty", "empty repoURL"),
    (
        "spec.syncPolicy.retry.limit",
        "many",
        "spec.syncPolicy.retry.limit: expected an integer",
        "retry limit not a number",
    ),
    (
        "spec.syncPolicy.retry.limit",
        -2,
        "spec.syncPolicy.retry.limit: must be -1 (unlimited) or more",
        "retry limit below -1",
    ),
    (
        "spec.syncPolicy.retry.backoff.duration",
        "soon",
        "spec.syncPolicy.retry.backoff.duration: invalid duration",
        "bad backoff duration",
    ),
    (
        "spec.syncPolicy.automated.prune",
        "yes please",
        "spec.syncPolicy.automated.prune: expected a boolean",
        "prune not a boolean",
    ),
    (
        "spec.syncPolicy.syncOptions",
        "CreateNamespace=true",
        "spec.syncPolicy.syncOptions: expected a list",
        "syncOptions not a list",
    ),
    (
        "spec.destination.server",
        "https://k",
        "spec.destination: set either server or name, not both",
        "server and name both set",
    ),
    (
        "spec.ignoreDifferences",
        [{"kind": "Deployment", "jsonPointers": ["spec/replicas"]}],
        "spec.ignoreDifferences[0].jsonPointers[0]: JSON pointer 'spec/replicas' must start",
        "pointer without slash",
    ),
    (
        "spec.ignoreDifferences",
        [{"group": "apps"}],
        "spec.ignoreDifferences[0].kind: is required",
        "ignore rule without kind",
    ),
    ("kind", "App", "kind: expected Application", "wrong kind"),
]


@pytest.mark.parametrize(
    ("path", "value", "message"), [m[:3] for m in MALFORMED], ids=[m[3] for m in MALFORMED]
)
def test_malformed_application_names_the_field(path: str, value: Any, message: str) -> None:
    with pytest.raises(SpecError) as caught:
        Application.from_dict(broken(path, value))
    assert str(caught.value).startswith("Application retrying: ")
    assert message in str(caught.value)


def test_app_project_round_trip() -> None:
    doc = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "AppProject",
        "metadata": {"name": "team", "namespace": "argocd"},
        "spec": {
            "sourceRepos": ["https://github.com/org/*", "!https://github.com/org/secret"],
            "destinations": [{"server": "*", "namespace": "team-*"}],
            "clusterResourceWhitelist": [{"group": "", "kind": "Namespace"}],
            "namespaceResourceBlacklist": [{"group": "", "kind": "ResourceQuota"}],
            "roles": [
                {"name": "ci", "policies": ["p, proj:team:ci, applications, sync, team/*, allow"]}
            ],
            "newProjectField": 1,
        },
    }
    project = AppProject.from_dict(copy.deepcopy(doc))
    assert project.spec.destinations[0].namespace == "team-*"
    assert project.to_dict() == doc


def _model_types() -> list[type]:
    found: dict[str, type] = {}
    for info in pkgutil.iter_modules(model.__path__):
        module = importlib.import_module(f"app.model.{info.name}")
        for value in vars(module).values():
            if dataclasses.is_dataclass(value) and isinstance(value, type):
                found.setdefault(f"{value.__module__}.{value.__qualname__}", value)
    return [found[name] for name in sorted(found)]


@pytest.mark.parametrize("cls", _model_types(), ids=lambda cls: cls.__qualname__)
def test_every_model_type_decodes_from_its_own_module(cls: type) -> None:
    """The codec resolves a field's type from the module that defines the class, so a model
    module that names another's types only for type checking could not be decoded."""
    hints = typing.get_type_hints(cls)
    assert {f.name for f in dataclasses.fields(cls)} <= set(hints)
