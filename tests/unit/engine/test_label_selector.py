"""Label selectors: the syntax kubectl, client libraries and `sluice app list -l` send."""

import pytest

from app.model.label_selector import SelectorError, parse_label_selector

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
def test_malformed_label_selectors_are_refused_naming_the_selector(selector: str) -> None:
    with pytest.raises(SelectorError) as e:
        parse_label_selector(selector)
    assert f"label selector {selector!r}" in e.value.message
