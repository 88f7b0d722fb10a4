"""Redaction: the single choke point that keeps credentials and Secret values out of sight.

Everything Sluice shows a person or writes down (errors, log lines, conditions, events,
diffs, status) passes through here first (docs/threats.md, "credentials in errors" and "Secret
values in diffs"):

- `redact_text` masks credentials in free text: the password (or a lone token) in URL
  userinfo, token-like query parameters, `Authorization`-style bearer/basic values and
  PEM private-key blocks.
- `mask_secret` / `mask_secret_pair` replace every value of a Secret's `data` and
  `stringData` (and inside its last-applied annotation) by runs of `+`. The decision is
  keyed on the object's kind as the server reports it (`v1 Secret`). A pair is masked
  consistently: equal values get the same mask and different values different masks
  (`++++++++`, `+++++++++`, ...), so a diff still shows *that* a key changed, never what
  it holds.

The functions never modify their input; they copy only what they change.
"""

import json
import re
from typing import Any

from app.model.annotations import LAST_APPLIED
from app.model.resource import KubeObject

MASK = "++++++++"
"""What a Secret value is shown as (one more `+` for each further distinct value of a key)."""
HIDDEN = "***"
"""What a credential in free text is replaced by."""

_URL_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.\-]*://)(?P<info>[^\s/@?#]+)@")
_QUERY_SECRET = re.compile(
    r"(?i)(?P<key>[?&;](?:access_token|id_token|refresh_token|private_token|token|password|"
    r"passwd|pwd|secret|client_secret|api_key|apikey|key|sig|signature|x-amz-signature|"
    r"x-amz-credential|x-amz-security-token|x-goog-signature|auth)=)[^&;\s#\"']+"
)
_AUTH_SCHEME = re.compile(
    r"(?i)\b(?P<scheme>bearer|basic|token)(?P<sep>\s+|=)[A-Za-z0-9._~+/=\-]{8,}"
)
_PEM = re.compile(
    r"-----BEGIN (?P<what>[A-Z ]*PRIVATE KEY)-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
    re.DOTALL,
)


def _userinfo(match: re.Match[str]) -> str:
    info = match.group("info")
    user, colon, _ = info.partition(":")
    masked = f"{user}:{HIDDEN}" if colon else HIDDEN
    return f"{match.group('scheme')}{masked}@"


def redact_text(text: str) -> str:
    """`text` with URL credentials, token query parameters, auth headers and keys masked."""
    if not text:
        return text
    out = _URL_USERINFO.sub(_userinfo, text)
    out = _QUERY_SECRET.sub(lambda m: m.group("key") + HIDDEN, out)
    out = _AUTH_SCHEME.sub(lambda m: m.group("scheme") + m.group("sep") + HIDDEN, out)
    return _PEM.sub(lambda m: f"-----BEGIN {m.group('what')}----- {HIDDEN}", out)


def is_secret(obj: KubeObject | None) -> bool:
    """True for a core `v1` Secret (the kind the API server reports, not a look-alike CRD)."""
    return obj is not None and obj.get("kind") == "Secret" and obj.get("apiVersion") in ("v1", None)


_VALUE_FIELDS = ("data", "stringData")


def _masked_values(values: dict[str, Any], masks: dict[str, dict[str, str]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        seen = masks.setdefault(key, {})
        text = json.dumps(value, sort_keys=True)
        if text not in seen:
            seen[text] = MASK + "+" * len(seen)
        out[key] = seen[text]
    return out


def _mask(obj: KubeObject, masks: dict[str, dict[str, str]]) -> KubeObject:
    out = dict(obj)
    for field in _VALUE_FIELDS:
        values = obj.get(field)
        if isinstance(values, dict):
            out[field] = _masked_values(values, masks)
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return out
    annotations = meta.get("annotations")
    if isinstance(annotations, dict) and isinstance(annotations.get(LAST_APPLIED), str):
        masked = _mask_last_applied(annotations[LAST_APPLIED], masks)
        out["metadata"] = {**meta, "annotations": {**annotations, LAST_APPLIED: masked}}
    return out


def _mask_last_applied(text: str, masks: dict[str, dict[str, str]]) -> str:
    try:
        applied = json.loads(text)
    except ValueError:
        return MASK
    if not isinstance(applied, dict):
        return MASK
    inner = {k: v for k, v in applied.items() if k != "metadata"}
    return json.dumps(_mask(inner, masks) | {"metadata": applied.get("metadata", {})})


def mask_secret(obj: KubeObject) -> KubeObject:
    """A copy of a Secret with every value masked; any other object is returned as is."""
    if not is_secret(obj):
        return obj
    return _mask(obj, {})


def mask_secret_pair(
    first: KubeObject | None, second: KubeObject | None
) -> tuple[KubeObject | None, KubeObject | None]:
    """Mask two versions of one object consistently (same value, same mask), for a diff."""
    if not (is_secret(first) or is_secret(second)):
        return first, second
    masks: dict[str, dict[str, str]] = {}
    return (
        _mask(first, masks) if first is not None else None,
        _mask(second, masks) if second is not None else None,
    )
