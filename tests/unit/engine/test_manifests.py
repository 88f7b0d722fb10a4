"""Manifest loading: what becomes an object, and the error for everything else."""

import tracemalloc
from collections.abc import Callable

import pytest

from app.engine.manifests import ManifestLimits, load_manifests, parse_manifests
from app.model.errors import SpecError

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"


def names(objs: list[dict[str, object]]) -> list[str]:
    return [o["metadata"]["name"] for o in objs]  # type: ignore[index]


ACCEPTED = [
    pytest.param("multi-document", CM.format(name="a") + "---\n" + CM.format(name="b"), ["a", "b"]),
    pytest.param("empty documents skipped", "---\n---\n" + CM.format(name="a") + "---\n", ["a"]),
    pytest.param(
        "kind List flattened",
        "apiVersion: v1\nkind: List\nitems:\n"
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n"
        "- {apiVersion: v1, kind: Secret, metadata: {name: b}}\n",
        ["a", "b"],
    ),
    pytest.param(
        "ConfigMapList flattened",
        "apiVersion: v1\nkind: ConfigMapList\nitems:\n"
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n",
        ["a"],
    ),
    pytest.param(
        "generateName allowed on argo hook",
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: migrate-\n"
        "  annotations: {argocd.argoproj.io/hook: PreSync}\n",
        [None],
    ),
    pytest.param(
        "generateName allowed on helm hook",
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: migrate-\n"
        "  annotations: {helm.sh/hook: pre-install}\n",
        [None],
    ),
]


@pytest.mark.parametrize(("rule", "text", "expected"), ACCEPTED)
def test_accepted_yaml(rule: str, text: str, expected: list[str | None]) -> None:
    objs = parse_manifests(text, source="app.yaml")
    assert [o["metadata"].get("name") for o in objs] == expected


def test_yaml_scalars_read_as_kubernetes_reads_them() -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
        "data:\n  when: 2024-01-02\n  2: two\n  true: yes\n"
        "binaryData:\n  blob: !!binary |\n    aGVs\n    bG8=\n"
    )
    (obj,) = parse_manifests(text, source="app.yaml")
    assert obj["data"] == {"when": "2024-01-02", "2": "two", "true": True}
    assert obj["binaryData"] == {"blob": "aGVsbG8="}


def test_json_file_parsed_as_json_and_list_flattened() -> None:
    text = (
        '{"apiVersion": "v1", "kind": "List", "items": ['
        '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}]}'
    )
    assert names(parse_manifests(text, source="out.json")) == ["a"]


def _cm(name: str) -> str:
    return f'{{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {{"name": "{name}"}}}}'


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        pytest.param(_cm("a"), ["a"], id="object"),
        pytest.param(f"[{_cm('a')}, null, {_cm('b')}]", ["a", "b"], id="array-nulls-dropped"),
        pytest.param(
            f'[{{"apiVersion": "v1", "kind": "List", "items": [{_cm("a")}, {_cm("b")}]}}]',
            ["a", "b"],
            id="list-in-array-flattened",
        ),
        pytest.param("null", [], id="null"),
        pytest.param("[]", [], id="empty-array"),
    ],
)
def test_jsonnet_output_is_shaped_as_argo_cd_shapes_it(output: str, expected: list[str]) -> None:
    assert names(parse_manifests(output, source="app/main.jsonnet")) == expected


@pytest.mark.parametrize(
    ("output", "message"),
    [
        pytest.param(f"[[{_cm('a')}]]", "main.jsonnet document 1: is an array inside", id="nested"),
        pytest.param(
            f'[{_cm("a")}, "x"]',
            "main.jsonnet document 2: expected a Kubernetes object",
            id="string-element",
        ),
        pytest.param('"text"', "expected a Kubernetes object (a mapping), got str", id="string"),
    ],
)
def test_jsonnet_output_that_argo_cd_refuses_is_refused(output: str, message: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_manifests(output, source="app/main.jsonnet")
    assert message in str(caught.value)


def test_merge_keys_are_not_duplicates() -> None:
    text = (
        "base: &base {x: 1}\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
        "data:\n  <<: *base\n  y: '2'\n"
    )
    (obj,) = parse_manifests(text, source="app.yaml")
    assert obj["data"] == {"x": 1, "y": "2"}


REJECTED = [
    pytest.param(
        "invalid YAML",
        CM.format(name="a") + "---\n" + "apiVersion: v1\nkind: [unclosed\n",
        "app.yaml document 2 (line 7)",
        "while parsing a flow sequence, did not find expected ',' or ']'",
    ),
    pytest.param(
        "duplicate key names both lines",
        CM.format(name="a") + "data:\n  k: '1'\n  k: '2'\n",
        "app.yaml document 1 (line 7)",
        "duplicate key 'k' (first at line 6)",
    ),
    pytest.param(
        "duplicate key in flow mapping",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, name: b}\n",
        "app.yaml document 1 (line 3)",
        "duplicate key 'name'",
    ),
    pytest.param(
        "missing kind",
        "apiVersion: v1\nmetadata:\n  name: a\n",
        "app.yaml document 1 (line 1): kind: is required",
        "apiVersion, kind and metadata.name",
    ),
    pytest.param(
        "missing apiVersion",
        "---\n" + "kind: ConfigMap\nmetadata:\n  name: a\n",
        "app.yaml document 1 (line 2): apiVersion: is required",
        "",
    ),
    pytest.param(
        "missing metadata",
        "apiVersion: v1\nkind: ConfigMap\n",
        "app.yaml document 1 (line 1): metadata: is required",
        "",
    ),
    pytest.param(
        "missing metadata.name",
        CM.format(name="a") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {labels: {}}\n",
        "app.yaml document 2 (line 6): metadata.name: is required",
        "",
    ),
    pytest.param(
        "generateName only for hooks",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: a-}\n",
        "metadata.name: is required; metadata.generateName is only allowed on hooks",
        "argocd.argoproj.io/hook",
    ),
    pytest.param(
        "list item without kind",
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, metadata: {name: a}}\n",
        "app.yaml document 1 item 1 (line 1): kind: is required",
        "",
    ),
    pytest.param(
        "document not a mapping",
        "- a\n- b\n",
        "app.yaml document 1 (line 1)",
        "expected a Kubernetes object (a mapping), got list",
    ),
    pytest.param(
        "recursive alias",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: &d [*d]\n",
        "app.yaml document 1 (line 4)",
        "recursive alias",
    ),
    pytest.param(
        "nesting too deep",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: " + "[" * 300 + "]" * 300,
        "app.yaml document 1",
        "nests deeper than 200 levels",
    ),
]


@pytest.mark.parametrize(("rule", "text", "where", "problem"), REJECTED)
def test_rejected_yaml(rule: str, text: str, where: str, problem: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_manifests(text, source="app.yaml")
    assert where in str(caught.value)
    assert problem in str(caught.value)


def test_json_duplicate_key_and_syntax_error_name_the_file() -> None:
    with pytest.raises(SpecError, match=r"out\.json document 1: duplicate key 'a'"):
        parse_manifests('{"a": 1, "a": 2}', source="out.json")
    with pytest.raises(SpecError, match=r"out\.json document 1 \(line 2\): invalid JSON"):
        parse_manifests('{"a":\n ]', source="out.json")


def test_document_count_is_capped() -> None:
    text = "---\n".join(CM.format(name=f"c{i}") for i in range(11))
    with pytest.raises(SpecError, match=r"document 11.*more than 10 documents"):
        parse_manifests(text, source="app.yaml", limits=ManifestLimits(max_documents=10))


def test_combined_size_is_checked_across_files_before_parsing() -> None:
    files = [("a.yaml", CM.format(name="a") * 1), ("b.yaml", "x: [" * 40)]
    with pytest.raises(
        SpecError, match=r"total .* over the 100 byte limit \(largest file: b\.yaml"
    ):
        load_manifests(files, limits=ManifestLimits(max_total_bytes=100))


def test_document_count_spans_files() -> None:
    files = [(f"f{i}.yaml", CM.format(name=f"c{i}")) for i in range(3)]
    assert names(load_manifests(files[:2], limits=ManifestLimits(max_documents=2))) == ["c0", "c1"]
    with pytest.raises(SpecError, match=r"f2\.yaml document 1"):
        load_manifests(files, limits=ManifestLimits(max_documents=2))


def billion_laughs() -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        refs = ",".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\n" + "\n".join(lines) + "\n"


def fifty_megabytes() -> str:
    return CM.format(name="big") + "data:\n  blob: '" + "x" * (50 * 1024 * 1024) + "'\n"


def many_keys_duplicate_last() -> str:
    body = "".join(f"  k{i}: v\n" for i in range(5_000))
    return CM.format(name="a") + "data:\n" + body + "  k0: again\n"


MIB = 1024 * 1024

# (rule, input, error, peak memory while refusing it). The input is built before memory is
# traced; a parser that expanded the bomb, or copied and parsed the 50 MB document, would
# allocate far more than its bound.
BAD_INPUTS: list[tuple[str, Callable[[], str], str, int]] = [
    ("invalid YAML", lambda: "a: [\n" * 1000, "app.yaml document 1", 16 * MIB),
    ("YAML bomb (billion laughs)", billion_laughs, "looks like a YAML bomb", 4 * MIB),
    ("missing kind", lambda: "apiVersion: v1\nmetadata: {name: a}\n", "kind: is required", MIB),
    ("50 MB document", fifty_megabytes, "over the 10,485,760 byte manifest limit", MIB),
    ("duplicate keys", many_keys_duplicate_last, "duplicate key 'k0' (first at line 6)", 32 * MIB),
]


@pytest.mark.parametrize(
    ("rule", "build", "message", "bound"), BAD_INPUTS, ids=[case[0] for case in BAD_INPUTS]
)
def test_bad_input_is_refused_with_bounded_memory(
    rule: str, build: Callable[[], str], message: str, bound: int
) -> None:
    """How long each refusal takes is measured by `python -m bench hostile_inputs`."""
    text = build()
    tracemalloc.start()
    try:
        with pytest.raises(SpecError) as caught:
            parse_manifests(text, source="app.yaml")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert message in str(caught.value)
    assert peak < bound, f"{rule} peaked at {peak / MIB:.1f} MiB (bound {bound / MIB:.0f} MiB)"
