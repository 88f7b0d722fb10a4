"""Watch streams are split into events however the bytes arrive, and size-capped."""

import asyncio

import pytest
from aiohttp import StreamReader
from aiohttp.base_protocol import BaseProtocol

from app.cluster.errors import ClusterError, Target
from app.cluster.watching import LineReader

TARGET = Target("watch", "ConfigMap", "v1")


def stream(*chunks: bytes) -> StreamReader:
    loop = asyncio.get_running_loop()
    reader = StreamReader(BaseProtocol(loop), 2**16, loop=loop)
    for chunk in chunks:
        reader.feed_data(chunk)
    reader.feed_eof()
    return reader


async def read_all(reader: LineReader) -> list[bytes]:
    lines = []
    while (line := await reader.readline()) is not None:
        lines.append(line)
    return lines


@pytest.mark.parametrize(
    "chunks",
    [
        pytest.param([b'{"a":1}\n{"b":2}\n'], id="one-chunk"),
        pytest.param([b'{"a"', b":1}\n", b'{"b":2}', b"\n"], id="split-mid-event"),
        pytest.param([b'{"a":1}\n\n\r\n', b'{"b":2}'], id="blank-lines-and-no-final-newline"),
    ],
)
async def test_events_are_whole_lines(chunks: list[bytes]) -> None:
    assert await read_all(LineReader(stream(*chunks), 1024, TARGET)) == [b'{"a":1}', b'{"b":2}']


async def test_an_oversized_event_fails_the_stream() -> None:
    reader = LineReader(stream(b"x" * 600, b"x" * 600, b"\n"), 1000, TARGET)
    with pytest.raises(ClusterError, match="over the 1000-byte limit"):
        await read_all(reader)
