"""Helm `parameters` with list indexes end up in the values as `helm template --set` puts
them: parsed by Helm's own parser, placed into the values from the value files."""

from collections.abc import Sequence
from typing import Any

import pytest
import yaml

from app.repo.helm.child import merged_values
from app.repo.helm.set_values import SetError
from app.repo.helm.values import escape_commas


def values(
    document: str = "",
    *,
    sets: Sequence[tuple[str, str]] = (),
    strings: Sequence[tuple[str, str]] = (),
    files: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    return merged_values(
        {
            "values": [document] if document else [],
            "value_names": ["values.yaml"] if document else [],
            "set": list(sets),
            "set_string": list(strings),
            "set_file": list(files),
        }
    )


def test_an_index_replaces_one_element_and_keeps_the_others() -> None:
    found = values("tags: [red, green, blue]\n", sets=[("tags[1]", "gold")])
    assert found["tags"] == ["red", "gold", "blue"]


def test_a_key_of_a_listed_map_is_set_and_its_other_keys_stay() -> None:
    document = yaml.safe_dump(
        {"servers": [{"name": "a", "port": 80}, {"name": "b", "port": 81}], "keep": 1}
    )
    found = values(document, sets=[("servers[0].port", "8080"), ("servers[1].tls", "true")])
    assert found == {
        "servers": [{"name": "a", "port": 8080}, {"name": "b", "port": 81, "tls": True}],
        "keep": 1,
    }


def test_parameters_on_one_list_add_up_in_order() -> None:
    found = values(sets=[("a[1]", "x"), ("a[0].b", "y"), ("a[2][1]", "z")])
    assert found == {"a": [{"b": "y"}, "x", [None, "z"]]}


def test_an_index_past_the_end_grows_the_list_with_nulls() -> None:
    assert values("a: [p]\n", sets=[("a[3]", "z")])["a"] == ["p", None, None, "z"]


def test_a_nested_index_edits_the_inner_list() -> None:
    found = values("m: [[1], [2, 3]]\n", sets=[("m[1][0]", "9")])
    assert found["m"] == [[1], [9, 3]]


def test_an_explicit_null_at_an_index_replaces_that_element() -> None:
    assert values("a: [p, q]\n", sets=[("a[0]", "null")])["a"] == [None, "q"]


def test_a_key_under_an_element_that_is_no_map_makes_it_one() -> None:
    assert values("a: [text]\n", sets=[("a[0].b", "y")])["a"] == [{"b": "y"}]


def test_a_brace_list_at_an_index_and_escaped_commas_are_values() -> None:
    found = values(sets=[("a[1]", "{p,q}"), ("b[0]", escape_commas("x,y"))])
    assert found == {"a": [None, ["p", "q"]], "b": ["x,y"]}


def test_force_string_and_file_parameters_take_indexes_too() -> None:
    found = values(
        "certs: [first, second]\nports: [1]\n",
        sets=[("ports[0]", "007")],
        strings=[("ids[0]", "42")],
        files=[("certs[1]", "line one\nline, two\n")],
    )
    assert found == {
        "certs": ["first", "line one\nline, two\n"],
        "ports": ["007"],
        "ids": ["42"],
    }


@pytest.mark.parametrize(
    ("document", "name", "held"),
    [
        ("a: text\n", "a.b", "'a' as a string, not a map"),
        ("a:\n", "a.b", "'a' as null, not a map"),
        ("a: {b: 1}\n", "a[0]", "'a' as a map, not a list"),
        ("a: [5]\n", "a[0][1]", "'a[0]' as a number, not a list"),
    ],
)
def test_reaching_inside_a_scalar_is_refused_naming_the_parameter(
    document: str, name: str, held: str
) -> None:
    with pytest.raises(SetError) as refused:
        values(document, sets=[(name, "x")])
    assert str(refused.value).startswith(f"parameter {name!r}: the values hold {held}")
