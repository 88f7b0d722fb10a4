"""`when` and `oncePer` expressions: Argo CD's catalog conditions, and the bounds."""

from typing import Any

import pytest

from app.engine.notifications.expr import compile_expression
from app.engine.notifications.functions import HELPERS, EvalError

APP: dict[str, Any] = {
    "metadata": {"name": "gb", "annotations": {"example.com/version": "v1"}},
    "status": {
        "sync": {"status": "Synced", "revision": "abc"},
        "health": {"status": "Healthy", "lastTransitionTime": "2026-01-01T00:00:20Z"},
        "operationState": {
            "phase": "Succeeded",
            "startedAt": "2026-01-01T00:00:00Z",
            "finishedAt": "2026-01-01T00:00:30Z",
            "syncResult": {"revision": "abc"},
        },
    },
}


def run(source: str, app: dict[str, Any] = APP) -> Any:
    return compile_expression(source).run({"app": app, **HELPERS})


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("true", True),
        ("app.metadata.deletionTimestamp != nil", False),
        (
            "app.status.operationState != nil and app.status.operationState.phase in ['Succeeded']",
            True,
        ),
        ("app.status?.operationState.phase in ['Error', 'Failed']", False),
        ("app.status.operationState?.syncResult?.revision", "abc"),
        ('app.metadata.annotations["example.com/version"]', "v1"),
        ("app.status.sync.status not in ['Unknown']", True),
        ("app.status.health.status == 'Healthy' && !(app.status.sync.status == 'OutOfSync')", True),
        ("app.spec?.source ?? 'none'", "none"),
        ("app.status.sync.status == 'Synced' ? 'yes' : 'no'", "yes"),
        ("app.metadata.name startsWith 'g' and app.metadata.name endsWith 'b'", True),
        ("app.metadata.name contains 'x' || 1 + 2 * 3 == 7", True),
        ("strings.ToUpper(app.metadata.name)", "GB"),
        (
            "time.Parse(app.status.health.lastTransitionTime).Add(1 * time.Minute)"
            ".Before(time.Parse(app.status.operationState.finishedAt))",
            False,
        ),
        (
            "time.Parse(app.status.operationState.finishedAt)"
            ".Sub(time.Parse(app.status.operationState.startedAt)).Seconds()",
            30.0,
        ),
        ("time.Now().Sub(time.Parse(app.status.operationState.startedAt)).Minutes() >= 5", True),
    ],
)
def test_catalog_style_conditions_evaluate_as_in_argo_cd(source: str, expected: Any) -> None:
    assert run(source) == expected


def test_a_member_of_nil_is_an_error_unless_reached_optionally() -> None:
    app = {"metadata": {"name": "gb"}, "status": {}}
    with pytest.raises(EvalError, match="cannot fetch phase from nil"):
        run("app.status.operationState.phase == 'Running'", app)
    assert run("app.status.operationState?.phase == 'Running'", app) is False
    assert (
        run("app.status.operationState != nil and app.status.operationState.phase == 'x'", app)
        is False
    )


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("app.metadata.name matches '^g'", "'matches'"),
        ("app.metadata.name ==", "unexpected 'the end of the expression'"),
        ("app.metadata.name # 1", "unexpected character '#'"),
        ("(" * 60 + "true" + ")" * 60, "nested more than"),
        ("x" * 5000, "longer than"),
    ],
)
def test_what_cannot_be_parsed_is_refused_saying_why(source: str, problem: str) -> None:
    with pytest.raises(EvalError, match=problem.replace("(", r"\(")):
        compile_expression(source)


def test_no_attribute_of_a_python_object_is_reachable() -> None:
    with pytest.raises(EvalError, match="cannot fetch __class__"):
        run("app.metadata.name.__class__")
    with pytest.raises(EvalError, match="not a function"):
        run("app.metadata.name()")
