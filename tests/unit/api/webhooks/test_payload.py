"""Total reads of untrusted JSON: every failure is a PayloadError naming the field and type."""

import pytest

from app.api.webhooks.errors import PayloadError
from app.api.webhooks.payload import JsonObject, decode, shown


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"", "body: is empty"),
        (b"   \n", "body: is empty"),
        (b"{", "is not valid JSON"),
        (b"\xff\xfe\xfd", "body: is not"),
        (b"[" * 100_000, "body: is nested too deeply"),
        (b'{"n": ' + b"1" * 5000 + b"}", "number too long"),
    ],
    ids=["empty", "blank", "truncated", "not-utf8", "deep-nesting", "huge-number"],
)
def test_decode_refusals(body: bytes, problem: str) -> None:
    with pytest.raises(PayloadError, match=problem):
        decode(body)


def test_decode_reads_utf8_with_bom() -> None:
    assert decode(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}


DOC = {
    "repository": {"html_url": "https://x/y", "empty": "", "n": 3, "flag": True, "nothing": None},
    "commits": [{"added": ["a"], "removed": None}, 5],
    "list": "not a list",
}


@pytest.mark.parametrize(
    ("read", "problem"),
    [
        (lambda d: d.obj("missing"), "missing: is missing; expected an object"),
        (lambda d: d.obj("list"), "list: expected an object, got a string"),
        (
            lambda d: d.obj("repository").string("n"),
            "repository.n: expected a string, got a number",
        ),
        (lambda d: d.obj("repository").string("empty"), "repository.empty: is empty"),
        (lambda d: d.obj("repository").string("nothing"), "repository.nothing: is null"),
        (lambda d: d.obj("repository").optional_string("flag"), "expected a string, got a boolean"),
        (lambda d: d.obj("repository").optional_bool("n"), "expected a boolean, got a number"),
        (lambda d: d.obj("repository").optional_int("flag"), "expected an integer, got a boolean"),
        (lambda d: d.objects("commits"), r"commits\[1\]: expected an object, got a number"),
        (lambda d: d.objects("list"), "list: expected an array, got a string"),
        (lambda d: d.objects("missing"), "missing: is missing; expected an array"),
        (
            lambda d: d.obj("repository").objects("nothing", required=False, non_empty=True),
            "empty array",
        ),
    ],
    ids=[
        "missing-object",
        "wrong-object",
        "wrong-string",
        "empty-string",
        "null-string",
        "wrong-optional-string",
        "wrong-bool",
        "bool-is-not-int",
        "array-element",
        "wrong-array",
        "missing-array",
        "empty-array",
    ],
)
def test_typed_reads_name_the_field(read: object, problem: str) -> None:
    root = JsonObject(DOC)
    with pytest.raises(PayloadError, match=problem):
        read(root)  # type: ignore[operator]


def test_typed_reads_of_good_values() -> None:
    root = JsonObject(DOC)
    repository = root.obj("repository")
    assert repository.string("html_url") == "https://x/y"
    assert repository.string("empty", allow_empty=True) == ""
    assert repository.optional_string("nothing") == ""
    assert repository.optional_int("n") == 3
    assert repository.optional_bool("flag") is True
    assert root.optional_obj("missing") is None
    commit = JsonObject(DOC["commits"][0], "commits[0]")  # type: ignore[index]
    assert commit.strings("added") == ["a"]
    assert commit.strings("removed") == []


def test_present_strings_skip_missing_null_and_empty() -> None:
    repository = JsonObject(DOC).obj("repository")
    found = repository.present_strings("html_url", "empty", "nothing", "absent")
    assert found == [("repository.html_url", "https://x/y")]
    with pytest.raises(PayloadError, match=r"repository\.n: expected a string"):
        repository.present_strings("n")


def test_string_arrays_name_the_element() -> None:
    with pytest.raises(PayloadError, match=r"commits\[0\]\.added\[1\]: expected a string"):
        JsonObject({"added": ["a", 1]}, "commits[0]").strings("added")


def test_root_must_be_an_object() -> None:
    with pytest.raises(PayloadError, match="payload: expected an object, got an array"):
        JsonObject([])


def test_shown_values_are_bounded_and_printable() -> None:
    assert shown("x" * 100) == repr("x" * 60 + "…")
    assert shown("a\x1bb") == repr("a?b")
