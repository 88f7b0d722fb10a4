"""Fuzzing every provider's parser: arbitrary JSON, and documented payloads with any field
replaced by anything, raise nothing but the 400 errors (docs/threats.md: CVE-2025-59538 and
siblings)."""

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from multidict import CIMultiDict

from app.api.webhooks.errors import PayloadError, UnknownEvent
from app.api.webhooks.matching import decide_all, revision_matches
from app.api.webhooks.payload import decode
from app.api.webhooks.providers import identify
from app.api.webhooks.pushes import PushEvent, Ref, RefChange, RefKind
from tests.unit.api.webhooks.samples import HOSTS, Host, fleet

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(
        ["refs/heads/main", "refs/tags/v1.2.0", "main", "", "0" * 40, "git@h:o/r", "https://[/x"]
    ),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=12), children, max_size=5),
    ),
    max_leaves=20,
)


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            found += _paths(value, (*prefix, index))
    return found


def _replace(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copied = copy.deepcopy(doc)
    parent = copied
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return copied


def _parse(host: Host, doc: object) -> None:
    body, headers = host.request(doc, secret="")
    cim = CIMultiDict(headers)
    provider = identify(cim)
    assert provider is not None
    try:
        event = provider.parse(cim, decode(body))
    except (PayloadError, UnknownEvent) as e:
        assert e.message
        return
    if isinstance(event, PushEvent):
        decide_all(event, APPS[host.provider])


APPS = {host.provider: fleet(host.repo_url) for host in HOSTS}


@pytest.mark.parametrize("host", HOSTS, ids=[h.provider for h in HOSTS])
@FUZZ
@given(doc=json_values)
def test_arbitrary_json_is_a_push_or_a_400(host: Host, doc: object) -> None:
    _parse(host, doc)


@pytest.mark.parametrize("host", HOSTS, ids=[h.provider for h in HOSTS])
@FUZZ
@given(data=st.data(), value=json_values)
def test_documented_payload_with_any_field_replaced_is_a_push_or_a_400(
    host: Host, data: st.DataObject, value: object
) -> None:
    doc = host.payload()
    path = data.draw(st.sampled_from(_paths(doc)))
    _parse(host, _replace(doc, path, value))


@FUZZ
@given(body=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_arbitrary_bytes_decode_or_are_a_400(body: bytes) -> None:
    try:
        decode(body)
    except PayloadError as e:
        assert e.field == "body"


@FUZZ
@given(event=st.text(max_size=40))
def test_arbitrary_event_names_are_answered(event: str) -> None:
    host = HOSTS[0]
    body, headers = host.request(host.payload(), secret="")
    headers["X-GitHub-Event"] = event
    provider = identify(CIMultiDict(headers))
    if provider is None:
        assert event == "", "only an empty event header goes unrecognised"
        return
    try:
        provider.parse(CIMultiDict(headers), json.loads(body))
    except (PayloadError, UnknownEvent) as e:
        assert len(e.message) < 400


url_like = st.builds(
    lambda scheme, rest: scheme + rest,
    st.sampled_from(["https://", "http://", "ssh://git@", "git@", "file://", "/", "ext::", ""]),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=30),
)


@pytest.mark.parametrize("host", HOSTS, ids=[h.provider for h in HOSTS])
@FUZZ
@given(data=st.data(), value=url_like)
def test_any_repository_url_in_the_payload_is_a_push_or_a_400(
    host: Host, data: st.DataObject, value: str
) -> None:
    doc = host.payload()
    urls = [p for p in _paths(doc) if _is_url(_get(doc, p))]
    path = data.draw(st.sampled_from(urls))
    _parse(host, _replace(doc, path, value))


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def _is_url(value: Any) -> bool:
    return isinstance(value, str) and ("://" in value or value.startswith("git@"))


@FUZZ
@given(
    target=st.text(max_size=80) | st.sampled_from([">=1.0.0 <2", "^1.x", "1.2 - 1.4", "v1.2.3"]),
    kind=st.sampled_from(list(RefKind)),
    name=st.text(max_size=80) | st.sampled_from(["v1.2.3", "1.2", "main", "1" * 1000]),
)
def test_revision_rules_never_raise(target: str, kind: RefKind, name: str) -> None:
    change = RefChange(Ref(kind, name), "0" * 40, "1" * 40, touched_head=False)
    reason = revision_matches(target, change)
    assert reason is None or "targetRevision" in reason
