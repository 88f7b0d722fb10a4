"""ignoreDifferences (SEMANTICS §4.5): matching, jsonPointers, jqPathExpressions, limits."""

from typing import Any

import pytest

from app.engine.normalize.ignore import compile_ignore_rules, parse_pointer, remove_pointer
from app.engine.normalize.jq_paths import JqDeadlineExceeded, compile_jq_path, nested_quantifier
from app.model.app_spec import ResourceIgnoreDifferences as Rule
from app.model.errors import SpecError
from app.model.resource import ResourceKey

GENEROUS = 600.0
"""A jq deadline no loaded machine reaches: these tests are about what is evaluated."""

WEB = ResourceKey("apps", "Deployment", "prod", "web")

MATCHING = [
    (Rule(group="apps", kind="Deployment"), WEB, True, "§4.5 group and kind match"),
    (Rule(group="*", kind="*"), WEB, True, "§4.5 star globs match everything"),
    (Rule(group="app?", kind="Deploy*"), WEB, True, "§4.5 glob patterns"),
    (Rule(group="", kind="Deployment"), WEB, False, "§4.5 empty group is the core group only"),
    (Rule(group="apps", kind="StatefulSet"), WEB, False, "§4.5 other kind"),
    (Rule(group="apps", kind="Deployment", name="web"), WEB, True, "§4.5 optional name equal"),
    (Rule(group="apps", kind="Deployment", name="api"), WEB, False, "§4.5 optional name differs"),
    (Rule(group="apps", kind="Deployment", namespace="prod"), WEB, True, "§4.5 namespace equal"),
    (Rule(group="apps", kind="Deployment", namespace="dev"), WEB, False, "§4.5 namespace differs"),
]


@pytest.mark.parametrize(
    ("rule", "key", "matches"), [m[:3] for m in MATCHING], ids=[m[3] for m in MATCHING]
)
def test_rule_matching(rule: Rule, key: ResourceKey, matches: bool) -> None:
    rules = compile_ignore_rules([rule])
    assert bool(rules.matching(key)) is matches


def test_system_rules_follow_app_rules_and_name_their_origin() -> None:
    rules = compile_ignore_rules(
        [Rule(group="apps", kind="Deployment", managed_fields_managers=["kube-controller"])],
        [Rule(group="*", kind="*", managed_fields_managers=["hpa", "kube-controller"])],
    )
    assert [r.origin for r in rules.matching(WEB)] == [
        "spec.ignoreDifferences[0]",
        "resource.customizations.ignoreDifferences[0]",
    ]
    assert rules.managers(WEB) == ("kube-controller", "hpa")


def deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "annotations": {"a/b": "1", "x~y": "2"}},
        "spec": {
            "replicas": 3,
            "template": {
                "spec": {
                    "containers": [
                        {"name": "app", "image": "app:1"},
                        {"name": "injected-sidecar", "image": "mesh:7"},
                    ]
                }
            },
        },
    }


POINTERS = [
    ("/spec/replicas", ["spec", "replicas"], "§4.5 jsonPointers remove a field"),
    ("/metadata/annotations/a~1b", ["metadata", "annotations", "a/b"], "§4.5 pointer ~1 is /"),
    ("/metadata/annotations/x~0y", ["metadata", "annotations", "x~y"], "§4.5 pointer ~0 is ~"),
]


@pytest.mark.parametrize(("pointer", "path", "rule"), POINTERS, ids=[p[2] for p in POINTERS])
def test_json_pointer_removes_the_member(pointer: str, path: list[str], rule: str) -> None:
    obj = deployment()
    out = remove_pointer(obj, parse_pointer(pointer, "f"))
    parent: Any = out
    for part in path[:-1]:
        parent = parent[part]
    assert path[-1] not in parent
    assert out["metadata"]["name"] == "web"
    assert obj == deployment(), "the input is not modified"


def test_json_pointer_into_a_list_and_to_nothing() -> None:
    obj = deployment()
    out = remove_pointer(obj, parse_pointer("/spec/template/spec/containers/1", "f"))
    assert [c["name"] for c in out["spec"]["template"]["spec"]["containers"]] == ["app"]
    for missing in ("/spec/nothing/here", "/spec/template/spec/containers/9", "/spec/replicas/x"):
        assert remove_pointer(obj, parse_pointer(missing, "f")) is obj


def test_bad_pointer_names_the_field() -> None:
    with pytest.raises(SpecError, match=r"spec\.ignoreDifferences\[0\]\.jsonPointers\[1\]: .*'~'"):
        compile_ignore_rules([Rule(kind="Deployment", json_pointers=["/ok", "/bad~2"])])


JQ_DOC_EXAMPLES = [
    (
        '.spec.template.spec.containers[] | select(.name == "injected-sidecar")',
        ["app"],
        "§4.5 jqPathExpressions: select a list item by name (Argo CD docs)",
    ),
    (
        '.spec.template.spec.containers[] | select(.name | startswith("injected-"))',
        ["app"],
        "§4.5 jqPathExpressions: startswith",
    ),
    (
        '.spec.template.spec.containers[] | select(.image | test("^mesh:"))',
        ["app"],
        "§4.5 jqPathExpressions: regex test",
    ),
    (".spec.template.spec.containers[1].image", ["app", "injected-sidecar"], "§4.5 jq field"),
]


@pytest.mark.parametrize(
    ("expression", "names"), [j[:2] for j in JQ_DOC_EXAMPLES], ids=[j[2] for j in JQ_DOC_EXAMPLES]
)
def test_jq_path_expressions(expression: str, names: list[str]) -> None:
    rules = compile_ignore_rules(
        [Rule(group="apps", kind="Deployment", jq_path_expressions=[expression])]
    )
    obj = deployment()
    result = rules.apply(obj, WEB)
    assert result.problems == ()
    assert [c["name"] for c in result.obj["spec"]["template"]["spec"]["containers"]] == names
    assert obj == deployment()


def test_jq_is_compiled_once_and_cached() -> None:
    first = compile_jq_path(".spec.paused", "f")
    assert compile_jq_path(".spec.paused", "g") is first


REJECTED_JQ = [
    ("def f: f; f", "uses 'def'", "jq admission: def (unbounded recursion)"),
    ("[range(1e9)]", "uses 'range'", "jq admission: range"),
    ("reduce .[] as $x (.; . + .)", "uses 'reduce'", "jq admission: reduce"),
    ("last(repeat(.))", "uses 'repeat'", "jq admission: repeat"),
    (".a | recurse(.b)", "recurse(f)", "jq admission: recurse with a function"),
    (".. | .. | ..", "more than 2 recursive descents", "jq admission: nested descents"),
    ('"x" * 100000000', "multiplies", "jq admission: string repetition"),
    (".a = 1", "assigns with '='", "jq admission: assignment"),
    ("$ENV.HOME", "reads $ENV", "jq admission: environment"),
    ("env.HOME", "uses 'env'", "jq admission: env builtin"),
    ("input", "uses 'input'", "jq admission: input"),
    ('"\\(.a)"', "interpolation", "jq admission: string interpolation"),
    (".a | " * 300 + ".a", "longer than 1024", "jq admission: length"),
    (",".join(["(.a)"] * 18), "more than 16 ','", "jq admission: commas double work"),
    ('.a[] | select(test("^(a+)+$"))', "backtrack", "jq admission: catastrophic regex"),
    ("del(.a", "does not compile: syntax error", "jq syntax error"),
]


@pytest.mark.parametrize(
    ("expression", "problem"), [r[:2] for r in REJECTED_JQ], ids=[r[2] for r in REJECTED_JQ]
)
def test_unbounded_jq_is_rejected_naming_the_field(expression: str, problem: str) -> None:
    with pytest.raises(SpecError) as caught:
        compile_ignore_rules([Rule(kind="*", jq_path_expressions=[".ok", expression])])
    assert str(caught.value).startswith("spec.ignoreDifferences[0].jqPathExpressions[1]: ")
    assert problem in str(caught.value)


def test_field_names_that_look_like_builtins_are_allowed() -> None:
    compile_jq_path('.spec.range | select(.env == "x") | .input', "f")


@pytest.mark.parametrize(
    ("pattern", "nested"),
    [
        ("(a+)+", True),
        ("(\\w*x)*", True),
        ("(ab){2,}", False),
        ("^mesh:.*$", False),
        ("(a|b)+", False),
    ],
)
def test_nested_quantifier_detection(pattern: str, nested: bool) -> None:
    assert nested_quantifier(pattern) is nested


def test_worst_admitted_expression_runs_to_its_answer() -> None:
    """Admitted, it evaluates over a 200-item object (cost: `python -m bench hostile_inputs`)."""
    big = {
        "items": [
            {"name": f"n{i}", "labels": {f"k{j}": "a" * 60 for j in range(20)}} for i in range(200)
        ]
    }
    expression = '.. | .. | select(type == "string" and test("^a+b$"))'
    path = compile_jq_path(expression, "f")
    assert path.delete_from(big, deadline=GENEROUS) == big
    assert not path.disabled


def test_deadline_exceeded_disables_the_expression() -> None:
    path = compile_jq_path('.metadata.labels["deadline-test"]', "f")
    obj = deployment()
    with pytest.raises(JqDeadlineExceeded, match="over the 1e-09s deadline"):
        path.delete_from(obj, deadline=1e-9)
    with pytest.raises(JqDeadlineExceeded, match="disabled until the expression changes"):
        path.delete_from(obj, deadline=GENEROUS)
