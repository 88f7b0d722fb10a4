"""The decoding table: which message each kind is, and each message's fields.

`schema.json` is generated (`generate.py`) from Kubernetes' own protobuf definitions and
Go types. A field row is `[number, json_name, type, flags]`: `type` is a scalar
(`string`, `int32`, `int64`, `bool`, `bytes`, `double`, `float`), a message name
(`core.v1.PodSpec`, `apis.meta.v1.ObjectMeta`) or `map:KEY:VALUE`; `flags` holds `r`
(repeated), `o` (dropped when zero, as Go's `omitempty` drops a non-pointer field) and
`i` (inlined: its fields belong to the enclosing JSON object).
"""

import functools
import json
from dataclasses import dataclass
from importlib import resources

TIME = "apis.meta.v1.Time"
MICRO_TIME = "apis.meta.v1.MicroTime"
DURATION = "apis.meta.v1.Duration"
FIELDS_V1 = "apis.meta.v1.FieldsV1"
INT_OR_STRING = "util.intstr.IntOrString"
QUANTITY = "api.resource.Quantity"
RAW_EXTENSION = "runtime.RawExtension"
SPECIAL = frozenset({TIME, MICRO_TIME, DURATION, FIELDS_V1, INT_OR_STRING, QUANTITY, RAW_EXTENSION})
"""Messages whose JSON form is not an object of their fields (a string, a number, raw JSON)."""


@dataclass(frozen=True, slots=True)
class Field:
    number: int
    name: str
    type: str
    repeated: bool = False
    omit_zero: bool = False
    inline: bool = False
    map_key: str = ""
    map_value: str = ""


@dataclass(frozen=True, slots=True)
class Schema:
    source: str
    """Which Kubernetes release the table was generated from."""
    kinds: dict[str, str]
    """`apps/v1/Deployment` (`v1/Pod` for the core group) -> message name."""
    messages: dict[str, dict[int, Field]]

    def message_of(self, api_version: str, kind: str) -> str | None:
        return self.kinds.get(f"{api_version}/{kind}")


def _field(row: list[object]) -> Field:
    number, name, kind, flags = row
    assert isinstance(number, int) and isinstance(name, str)
    assert isinstance(kind, str) and isinstance(flags, str)
    key = value = ""
    if kind.startswith("map:"):
        _, key, value = kind.split(":", 2)
    return Field(
        number=number,
        name=name,
        type=kind,
        repeated="r" in flags,
        omit_zero="o" in flags,
        inline="i" in flags,
        map_key=key,
        map_value=value,
    )


@functools.cache
def load() -> Schema:
    """The table shipped with the package (read once)."""
    raw = json.loads(resources.files(__package__).joinpath("schema.json").read_text())
    return Schema(
        source=raw["source"],
        kinds=raw["kinds"],
        messages={
            name: {row[0]: _field(row) for row in rows} for name, rows in raw["messages"].items()
        },
    )
