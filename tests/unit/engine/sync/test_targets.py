"""The sync applies targets placed and tracked exactly as the comparison prepared them."""

import pytest

from app.engine.compare import CompareSettings, compare
from app.engine.exclusions import ResourceExclusion
from app.engine.sync.targets import split_targets
from app.engine.tracking import TrackingMethod
from app.model.project import AppProject
from app.model.resource import KubeObject, ResourceKey
from tests.unit.engine.sync.builders import app, obj

SCOPES = {("", "Namespace"): False, ("", "ConfigMap"): True}
SERVER = "https://kubernetes.default.svc"


def targets(manifests: list[KubeObject], method: TrackingMethod) -> list[KubeObject]:
    return split_targets(
        manifests, app="shop", namespace="shop", tracking=method, scopes=SCOPES
    ).targets


@pytest.mark.parametrize("method", list(TrackingMethod), ids=lambda m: m.value)
def test_targets_match_what_compare_judged(method: TrackingMethod) -> None:
    manifests: list[KubeObject] = [
        obj("Deployment", "web"),
        obj("ConfigMap", "cfg", namespace="other"),
        obj("Namespace", "extra", namespace="ignored"),
        obj("ClusterRole", "reader"),
        obj("Deployment", "web", annotations={"v": "2"}),
        obj("Secret", "token"),
    ]
    application = app()
    settings = CompareSettings(
        tracking=method, scopes=SCOPES, exclusions=(ResourceExclusion(kinds=("Secret",)),)
    )
    split = split_targets(
        manifests,
        app=application.name,
        namespace="shop",
        tracking=method,
        scopes=SCOPES,
        excluded=lambda group, kind: settings.excluded(group, kind, SERVER),
    )
    judged = compare(application, manifests, [], AppProject.default(), settings)
    assert split.targets == [r.target for r in judged.resources]
    assert [c.type for c in judged.conditions] == [
        "ExcludedResourceWarning",
        "RepeatedResourceWarning",
    ]


def test_namespaces_are_placed_by_scope() -> None:
    prepared = targets(
        [obj("ConfigMap", "a"), obj("Namespace", "n", namespace="x")], TrackingMethod.ANNOTATION
    )
    assert [ResourceKey.of(o) for o in prepared] == [
        ResourceKey("", "ConfigMap", "shop", "a"),
        ResourceKey("", "Namespace", "", "n"),
    ]
    tracking = prepared[1]["metadata"]["annotations"]["argocd.argoproj.io/tracking-id"]
    assert tracking == "shop:/Namespace:shop/n"


def test_a_repeated_key_keeps_its_last_occurrence_and_is_counted() -> None:
    first = obj("ConfigMap", "a", annotations={"v": "1"})
    last = obj("ConfigMap", "a", annotations={"v": "2"})
    split = split_targets(
        [first, obj("ConfigMap", "b"), last, obj("ConfigMap", "a", namespace="shop")],
        app="shop",
        namespace="shop",
        tracking=TrackingMethod.LABEL,
        scopes=SCOPES,
    )
    assert [
        (o["metadata"]["name"], o["metadata"]["annotations"].get("v")) for o in split.targets
    ] == [("b", None), ("a", None)]
    assert split.repeated == {ResourceKey("", "ConfigMap", "shop", "a"): 3}
    assert split.targets[1]["metadata"]["labels"] == {"app.kubernetes.io/instance": "shop"}


def test_manifests_of_an_excluded_kind_are_split_off_placed_but_not_tracked() -> None:
    split = split_targets(
        [obj("ConfigMap", "a"), obj("Secret", "s"), obj("ConfigMap", "b")],
        app="shop",
        namespace="shop",
        tracking=TrackingMethod.ANNOTATION,
        scopes=SCOPES,
        excluded=lambda group, kind: (group, kind) == ("", "Secret"),
    )
    assert [o["metadata"]["name"] for o in split.targets] == ["a", "b"]
    assert split.repeated == {}
    (secret,) = split.excluded
    assert ResourceKey.of(secret) == ResourceKey("", "Secret", "shop", "s")
    assert "argocd.argoproj.io/tracking-id" not in secret["metadata"].get("annotations", {})


def test_generate_name_hooks_are_keyed_by_generate_name_and_position() -> None:
    hooks = [
        obj("Job", "", hook="PreSync", generate_name="migrate-"),
        obj("Job", "", hook="PreSync", generate_name="seed-"),
        obj("Job", "", hook="PreSync", generate_name="migrate-"),
    ]
    split = split_targets(
        hooks, app="shop", namespace="shop", tracking=TrackingMethod.ANNOTATION, scopes=SCOPES
    )
    assert list(split.by_key) == [
        ResourceKey("batch", "Job", "shop", "migrate-0"),
        ResourceKey("batch", "Job", "shop", "seed-1"),
        ResourceKey("batch", "Job", "shop", "migrate-2"),
    ]
    assert [o["metadata"]["generateName"] for o in split.targets] == [
        "migrate-",
        "seed-",
        "migrate-",
    ]
    assert split.repeated == {}
    judged = compare(app(), hooks, [], AppProject.default(), CompareSettings(scopes=SCOPES))
    assert not [c for c in judged.conditions if c.type == "RepeatedResourceWarning"]
