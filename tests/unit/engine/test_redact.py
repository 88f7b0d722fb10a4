"""Redaction: credentials and Secret values never reach what a person sees."""

import json

import pytest

from app.engine.redact import MASK, mask_secret, mask_secret_pair, redact_text

TEXT_CASES = [
    pytest.param(
        "https://user:s3cr3t@git.example.com/org/repo.git",
        "https://user:***@git.example.com/org/repo.git",
        id="url password masked, user kept",
    ),
    pytest.param(
        "fetch https://ghp_abcdef123456@github.com/org/repo failed",
        "fetch https://***@github.com/org/repo failed",
        id="lone token in userinfo masked",
    ),
    pytest.param(
        "GET https://charts.example.com/index.yaml?token=abc123&x=1",
        "GET https://charts.example.com/index.yaml?token=***&x=1",
        id="token query parameter masked",
    ),
    pytest.param(
        "https://s3/bucket/o?X-Amz-Signature=deadbeef",
        "https://s3/bucket/o?X-Amz-Signature=***",
        id="signed url signature masked",
    ),
    pytest.param(
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
        "Authorization: Bearer ***",
        id="bearer token masked",
    ),
    pytest.param(
        "key: -----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY----- end",
        "key: -----BEGIN RSA PRIVATE KEY----- *** end",
        id="pem private key masked",
    ),
    pytest.param(
        "git@github.com:org/repo.git at path apps/web",
        "git@github.com:org/repo.git at path apps/web",
        id="scp-style ssh url has no credential",
    ),
]


@pytest.mark.parametrize(("text", "expected"), TEXT_CASES)
def test_redact_text(text: str, expected: str) -> None:
    assert redact_text(text) == expected


def secret(data: dict[str, str], **extra: object) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": data, **extra}


def test_mask_secret_hides_every_value_and_leaves_input_alone() -> None:
    original = secret({"a": "cGFzcw=="}, stringData={"b": "plain"})
    masked = mask_secret(original)
    assert masked["data"] == {"a": MASK}
    assert masked["stringData"] == {"b": MASK}
    assert original["data"] == {"a": "cGFzcw=="}


def test_mask_secret_masks_the_last_applied_annotation() -> None:
    applied = json.dumps(secret({"a": "cGFzcw=="}))
    obj = secret({"a": "cGFzcw=="})
    obj["metadata"] = {
        "name": "s",
        "annotations": {"kubectl.kubernetes.io/last-applied-configuration": applied},
    }
    masked = mask_secret(obj)
    shown = masked["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    assert "cGFzcw==" not in shown
    assert json.loads(shown)["data"] == {"a": MASK}


def test_mask_is_keyed_on_kind() -> None:
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "x"}}
    look_alike = {**cm, "apiVersion": "example.com/v1", "kind": "Secret"}
    assert mask_secret(cm) is cm
    assert mask_secret(look_alike) is look_alike


def test_pair_masks_consistently_so_changes_still_show() -> None:
    target = secret({"same": "MQ==", "changed": "Mg==", "added": "Mw=="})
    live = secret({"same": "MQ==", "changed": "NA==", "removed": "NQ=="})
    masked_target, masked_live = mask_secret_pair(target, live)
    assert masked_target is not None and masked_live is not None
    assert masked_target["data"]["same"] == masked_live["data"]["same"] == MASK
    assert masked_target["data"]["changed"] != masked_live["data"]["changed"]
    assert {masked_target["data"]["changed"], masked_live["data"]["changed"]} == {MASK, MASK + "+"}
    assert masked_target["data"]["added"] == MASK
    assert masked_live["data"]["removed"] == MASK
    shown = json.dumps([masked_target, masked_live])
    assert not any(v in shown for v in ("MQ==", "Mg==", "Mw==", "NA==", "NQ=="))


def test_pair_with_missing_side() -> None:
    masked_target, masked_live = mask_secret_pair(secret({"a": "MQ=="}), None)
    assert masked_live is None
    assert masked_target is not None and masked_target["data"] == {"a": MASK}
