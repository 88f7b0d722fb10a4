"""Label and field selectors: the syntax kubectl and client libraries send."""

import pytest

from app.localcluster.errors import ApiError
from app.localcluster.selectors import parse_field_selector, parse_label_selector

LABELS = {"app": "web", "tier": "front", "replicas": "3"}


@pytest.mark.parametrize(
    ("selector", "matches"),
    [
        pytest.param("", True, id="empty-matches-all"),
        pytest.param("app=web", True, id="equality"),
        pytest.param("app==web", True, id="double-equality"),
        pytest.param("app=db", False, id="equality-miss"),
        pytest.param("app!=db", True, id="inequality"),
        pytest.param("missing!=x", True, id="inequality-matches-absent"),
        pytest.param("app", True, id="existence"),
        pytest.param("!app", False, id="non-existence"),
        pytest.param("!missing", True, id="non-existence-absent"),
        pytest.param("tier in (front, back)", True, id="set-in"),
        pytest.param("tier in (back)", False, id="set-in-miss"),
        pytest.param("tier notin (back)", True, id="set-notin"),
        pytest.param("missing notin (x)", True, id="set-notin-absent"),
        pytest.param("missing in (x)", False, id="set-in-absent"),
        pytest.param("replicas>2", True, id="greater-than"),
        pytest.param("replicas<2", False, id="less-than"),
        pytest.param("app=web,tier in (front),!missing", True, id="all-required"),
        pytest.param("app=web,tier=back", False, id="one-fails"),
        pytest.param("app=", False, id="empty-value"),
    ],
)
def test_label_selector_rules(selector: str, matches: bool) -> None:
    assert parse_label_selector(selector).matches(LABELS) is matches


@pytest.mark.parametrize(
    "selector",
    [
        pytest.param("app=web=x", id="two-operators"),
        pytest.param("tier in front", id="set-without-parentheses"),
        pytest.param("Bad Key=x", id="space-in-key"),
        pytest.param("app=" + "v" * 64, id="value-too-long"),
        pytest.param("replicas>many", id="non-integer-bound"),
        pytest.param("app=web,", id="trailing-comma"),
    ],
)
def test_malformed_label_selectors_are_bad_requests(selector: str) -> None:
    with pytest.raises(ApiError) as e:
        parse_label_selector(selector)
    assert e.value.code == 400
    assert "label selector" in e.value.message


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
