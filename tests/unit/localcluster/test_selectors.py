"""Label and field selectors: the syntax kubectl and client libraries send."""

import pytest

from app.localcluster.errors import ApiError
from app.localcluster.selectors import parse_field_selector, parse_label_selector


def test_a_malformed_label_selector_is_a_bad_request() -> None:
    with pytest.raises(ApiError) as e:
        parse_label_selector("tier in front")
    assert e.value.code == 400
    assert e.value.message == "unable to parse label selector 'tier in front': expected '('"


OBJ = {"metadata": {"name": "web", "namespace": "prod"}, "status": {"phase": "Running"}}


@pytest.mark.parametrize(
    ("selector", "matches"),
    [
        pytest.param("metadata.name=web", True, id="name"),
        pytest.param("metadata.name==web", True, id="name-double-equals"),
        pytest.param("metadata.name!=web", False, id="name-not"),
        pytest.param("metadata.namespace=prod,metadata.name=web", True, id="both"),
        pytest.param("metadata.namespace=dev", False, id="namespace-miss"),
        pytest.param("status.phase=Running", True, id="per-type-field"),
    ],
)
def test_field_selector_rules(selector: str, matches: bool) -> None:
    parsed = parse_field_selector(selector, ("status.phase",), "pods")
    assert parsed.matches(OBJ) is matches


def test_unsupported_field_is_refused_naming_the_usable_ones() -> None:
    with pytest.raises(ApiError) as e:
        parse_field_selector("spec.replicas=3", (), "deployments.apps")
    assert e.value.code == 400
    assert e.value.message == (
        "field label not supported: spec.replicas (fields usable on deployments.apps: "
        "'metadata.name', 'metadata.namespace')"
    )
