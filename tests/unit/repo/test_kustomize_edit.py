"""Application kustomize overrides merged into a kustomization, as `kustomize edit` would."""

from typing import Any

import pytest

from app.repo.errors import RenderError
from app.repo.kustomize_edit import apply_overrides, parse_image
from app.repo.kustomize_refs import is_remote

FIELD = "spec.source.kustomize"


def edit(kustomization: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    return apply_overrides(kustomization, overrides, field=FIELD).kustomization


@pytest.mark.parametrize(
    ("text", "entry"),
    [
        ("nginx:1.27", {"name": "nginx", "newTag": "1.27"}),
        ("nginx=mirror/nginx", {"name": "nginx", "newName": "mirror/nginx"}),
        (
            "nginx=registry.example:5000/nginx:1.27",
            {"name": "nginx", "newName": "registry.example:5000/nginx", "newTag": "1.27"},
        ),
        ("registry.example:5000/nginx", {"name": "registry.example:5000/nginx"}),
        ("nginx@sha256:" + "a" * 64, {"name": "nginx", "digest": "sha256:" + "a" * 64}),
        ("nginx=nginx:1.27", {"name": "nginx", "newTag": "1.27"}),
    ],
)
def test_image_arguments_read_as_kustomize_edit_set_image(text: str, entry: dict[str, str]) -> None:
    assert parse_image(text, "images[0]") == entry


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("nginx=", "is not an image override"),
        ("=nginx:1", "is not an image override"),
        ("nginx@md5:zz", "is not an image digest"),
        ("nginx:${ARGOCD_APP_REVISION}", "uses a build environment variable"),
    ],
)
def test_bad_image_arguments_are_refused_by_position(text: str, problem: str) -> None:
    with pytest.raises(RenderError, match=rf"^images\[0\]: .*{problem}"):
        parse_image(text, "images[0]")


def test_names_and_namespace_replace_the_kustomizations() -> None:
    result = edit(
        {"namePrefix": "old-", "resources": ["a.yaml"]},
        namePrefix="new-",
        nameSuffix="-x",
        namespace="shop",
    )
    assert result == {
        "namePrefix": "new-",
        "resources": ["a.yaml"],
        "nameSuffix": "-x",
        "namespace": "shop",
    }


def test_an_image_already_listed_is_updated_in_place_and_others_appended() -> None:
    result = edit(
        {"images": [{"name": "nginx", "newTag": "1.0", "newName": "m/nginx"}, {"name": "db"}]},
        images=["nginx:2.0", "redis=cache/redis:7"],
    )
    assert result["images"] == [
        {"name": "nginx", "newName": "m/nginx", "newTag": "2.0"},
        {"name": "db"},
        {"name": "redis", "newName": "cache/redis", "newTag": "7"},
    ]


def test_replicas_replace_by_name_and_accept_numeric_strings() -> None:
    result = edit(
        {"replicas": [{"name": "web", "count": 1}, {"name": "db", "count": 1}]},
        replicas=[{"name": "web", "count": "3"}, {"name": "worker", "count": 2}],
    )
    assert result["replicas"] == [
        {"name": "web", "count": 3},
        {"name": "db", "count": 1},
        {"name": "worker", "count": 2},
    ]


def test_labels_and_annotations_are_added_and_a_clash_needs_force() -> None:
    base = {"commonLabels": {"tier": "a"}, "commonAnnotations": {"note": "x"}}
    added = edit(base, commonLabels={"team": "shop"}, commonAnnotations={"owner": "ops"})
    assert added["commonLabels"] == {"tier": "a", "team": "shop"}
    assert added["commonAnnotations"] == {"note": "x", "owner": "ops"}
    forced = edit(
        base,
        commonLabels={"tier": "b"},
        forceCommonLabels=True,
        commonAnnotations={"note": "y"},
        forceCommonAnnotations=True,
    )
    assert (forced["commonLabels"], forced["commonAnnotations"]) == ({"tier": "b"}, {"note": "y"})
    with pytest.raises(RenderError, match="set forceCommonAnnotations: true to override it"):
        edit(base, commonAnnotations={"note": "y"})


def test_patches_are_appended_and_components_listed_once() -> None:
    patch = {"target": {"kind": "Deployment"}, "patch": "- op: remove\n  path: /spec/replicas"}
    result = edit(
        {"patches": [{"path": "p.yaml"}], "components": ["../c1"]},
        patches=[patch],
        components=["../c1", "../c2"],
    )
    assert result["patches"] == [{"path": "p.yaml"}, patch]
    assert result["components"] == ["../c1", "../c2"]


def test_the_input_is_not_changed() -> None:
    original: dict[str, Any] = {"images": [{"name": "nginx"}], "commonLabels": {"a": "1"}}
    edit(original, images=["nginx:2"], commonLabels={"b": "2"})
    assert original == {"images": [{"name": "nginx"}], "commonLabels": {"a": "1"}}


def test_helm_only_and_unknown_fields_are_ignored_and_reported() -> None:
    edited = apply_overrides({}, {"kubeVersion": "1.30", "futureField": 1}, field=FIELD)
    assert (edited.kustomization, edited.ignored) == ({}, ("futureField", "kubeVersion"))


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"version": "v4.5"},
            "spec.source.kustomize.version is set: Sluice runs the one kustomize",
        ),
        ({"namePrefix": 3}, "spec.source.kustomize.namePrefix must be a string, not int"),
        ({"images": "nginx:1"}, "spec.source.kustomize.images must be a list"),
        ({"replicas": [{"name": "w", "count": -1}]}, r"replicas\[0\]\.count: -1 is not a whole"),
        ({"forceCommonLabels": "yes"}, "forceCommonLabels must be true or false"),
        ({"commonLabels": {"rev": "$X"}}, "uses a build environment variable"),
    ],
)
def test_unusable_overrides_are_refused_by_field(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(RenderError, match=message):
        apply_overrides({}, overrides, field=FIELD)


@pytest.mark.parametrize(
    ("entry", "remote"),
    [
        ("https://example.com/a.yaml", True),
        ("git@github.com:org/repo.git//deploy", True),
        ("github.com/org/repo//deploy?ref=v1", True),
        ("../base", False),
        ("deploy.yaml", False),
        ("overlays/prod", False),
    ],
)
def test_remote_entries_are_recognised(entry: str, remote: bool) -> None:
    assert is_remote(entry) is remote
