"""Protobuf bodies decoded into the JSON the real API server would store.

The bodies are built field by field with a few lines of wire encoding below, so each
test names the exact bytes it sends; the real kubectl's bodies are exercised by the
kubectl integration tests.
"""

import pytest

from app.localcluster.protobuf import ProtobufError, UnknownKind, decode
from app.localcluster.protobuf.decode import MAX_DEPTH, go_duration
from app.localcluster.protobuf.schema import Field, Schema


def varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def num(number: int, value: int) -> bytes:
    return varint(number << 3) + varint(value)


def msg(number: int, *parts: bytes) -> bytes:
    body = b"".join(parts)
    return varint(number << 3 | 2) + varint(len(body)) + body


def text(number: int, value: str) -> bytes:
    return msg(number, value.encode())


def envelope(api_version: str, kind: str, *body: bytes) -> bytes:
    type_meta = msg(1, text(1, api_version), text(2, kind))
    return b"k8s\x00" + type_meta + msg(2, *body)


def meta(name: str, *more: bytes) -> bytes:
    """ObjectMeta as gogo-protobuf writes it: every non-pointer field, even when empty."""
    return msg(1, text(1, name), text(2, ""), text(3, ""), text(4, ""), num(7, 0), msg(8), *more)


def test_a_namespace_as_kubectl_create_sends_it() -> None:
    body = envelope("v1", "Namespace", meta("demo"), msg(2), msg(3, text(1, "")))
    assert decode(body) == {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "demo"},
        "spec": {},
        "status": {},
    }


def test_pointer_zero_is_kept_and_omitempty_zero_dropped() -> None:
    spec = msg(2, num(1, 0), num(5, 0), num(7, 0))  # replicas=0 (*int32), minReadySeconds, paused
    out = decode(envelope("apps/v1", "Deployment", meta("web"), spec))
    assert out["spec"] == {"replicas": 0}


def test_maps_bytes_and_labels() -> None:
    labels = msg(11, text(1, "app"), text(2, "web"))
    data = msg(2, text(1, "token"), msg(2, b"\x00\xffsecret"))
    out = decode(envelope("v1", "Secret", meta("s", labels), data, text(3, "Opaque")))
    assert out["metadata"]["labels"] == {"app": "web"}
    assert out["data"] == {"token": "AP9zZWNyZXQ="}
    assert out["type"] == "Opaque"


def test_int_or_string_quantity_and_inlined_volume_source() -> None:
    port = msg(1, text(1, "http"), num(3, 80), msg(4, num(1, 1), text(3, "web")))
    service = decode(envelope("v1", "Service", meta("s"), msg(2, port)))
    assert service["spec"]["ports"] == [{"name": "http", "port": 80, "targetPort": "web"}]
    numbered = msg(1, num(3, 80), msg(4, num(1, 0), num(2, 8080)))
    service = decode(envelope("v1", "Service", meta("s"), msg(2, numbered)))
    assert service["spec"]["ports"] == [{"port": 80, "targetPort": 8080}]
    limits = msg(1, text(1, "cpu"), msg(2, text(1, "500m")))
    container = msg(2, text(1, "app"), text(2, "nginx"), msg(8, limits))
    volume = msg(1, text(1, "scratch"), msg(2, msg(2, text(1, "Memory"))))  # emptyDir, inlined
    pod = decode(envelope("v1", "Pod", meta("p"), msg(2, volume, container)))
    assert pod["spec"]["volumes"] == [{"name": "scratch", "emptyDir": {"medium": "Memory"}}]
    assert pod["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "500m"}}


def test_times_and_durations() -> None:
    stamp = msg(9, num(1, 1_700_000_000))  # deletionTimestamp (a pointer)
    out = decode(envelope("v1", "ConfigMap", meta("c", stamp)))
    assert out["metadata"]["deletionTimestamp"] == "2023-11-14T22:13:20Z"
    assert "creationTimestamp" not in out["metadata"], "a zero Time is null, never 1970"
    assert [go_duration(n) for n in (0, 1_500_000, 90 * 10**9, 3600 * 10**9 + 5)] == [
        "0s",
        "1.5ms",
        "1m30s",
        "1h0m0.000000005s",
    ]


def test_negative_and_packed_numbers() -> None:
    job_spec = msg(2, num(1, 3), num(3, (1 << 64) - 1))  # parallelism 3, activeDeadlineSeconds -1
    out = decode(envelope("batch/v1", "Job", meta("j"), job_spec))
    assert out["spec"]["parallelism"] == 3
    assert out["spec"]["activeDeadlineSeconds"] == -1
    groups = msg(14, msg(4, varint(1000) + varint(2000)), num(4, 3000))  # packed, then one more
    pod = decode(envelope("v1", "Pod", meta("p"), msg(2, groups)))
    assert pod["spec"]["securityContext"] == {"supplementalGroups": [1000, 2000, 3000]}


def test_a_body_without_the_magic_is_refused() -> None:
    with pytest.raises(ProtobufError, match="magic"):
        decode(b'{"kind": "Namespace"}')


def test_truncated_bodies_are_refused_not_read_past_the_end() -> None:
    body = envelope("v1", "Namespace", meta("demo"))
    with pytest.raises(ProtobufError, match="claims"):
        decode(body[:-3])


def test_a_kind_outside_the_table_is_named() -> None:
    with pytest.raises(UnknownKind, match=r"example\.com/v1 Widget"):
        decode(envelope("example.com/v1", "Widget", meta("w")))


def test_an_unknown_field_with_a_value_is_refused_and_an_empty_one_ignored() -> None:
    assert decode(envelope("v1", "ConfigMap", meta("c"), text(99, "")))["metadata"] == {"name": "c"}
    with pytest.raises(ProtobufError, match="field 99"):
        decode(envelope("v1", "ConfigMap", meta("c"), text(99, "surprise")))


def test_nesting_is_bounded() -> None:
    node = {1: Field(1, "child", "x.v1.Node")}
    table = Schema("test", {"x/v1/Node": "x.v1.Node"}, {"x.v1.Node": node})
    body = b""
    for _ in range(MAX_DEPTH + 1):
        body = msg(1, body)
    with pytest.raises(ProtobufError, match="nested more than"):
        decode(envelope("x/v1", "Node", body), table)
