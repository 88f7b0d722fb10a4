"""LFS pointers: only an exact v1 pointer counts; endpoints as git-lfs derives them."""

import pytest

from app.repo.errors import LimitExceeded
from app.repo.lfs_pointer import (
    POINTER_MIN_BYTES,
    LfsLimits,
    LfsPointer,
    check_sizes,
    lfs_endpoint,
    may_be_pointer,
    parse_pointer,
)
from app.repo.urls import parse_repo_url

OID = "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393"
POINTER = f"version https://git-lfs.github.com/spec/v1\noid sha256:{OID}\nsize 12345\n".encode()


def test_a_v1_pointer_parses() -> None:
    assert parse_pointer(POINTER) == LfsPointer(OID, 12345)
    assert LfsPointer(OID, 12345).text == POINTER
    assert may_be_pointer(len(POINTER))
    assert len(LfsPointer(OID, 0).text) == POINTER_MIN_BYTES


@pytest.mark.parametrize(
    "blob",
    [
        POINTER.rstrip(b"\n"),
        POINTER.replace(OID.encode(), OID.upper().encode()),
        POINTER.replace(b"size 12345", b"size 012345"),
        POINTER + b"ext-0-foo sha256:" + OID.encode() + b"\n",
        b"apiVersion: v1\nkind: ConfigMap\n" + POINTER,
        POINTER + b"\n" * 1024,
    ],
    ids=["no-final-newline", "upper-case-oid", "leading-zero", "extension", "prefix", "too-long"],
)
def test_anything_else_is_an_ordinary_file(blob: bytes) -> None:
    assert parse_pointer(blob) is None


def test_endpoints_follow_git_lfs() -> None:
    assert (
        lfs_endpoint(parse_repo_url("https://bot@git.example/org/app", field="f"))
        == "https://git.example/org/app.git/info/lfs"
    )
    assert (
        lfs_endpoint(parse_repo_url("https://git.example:8443/org/app.git/", field="f"))
        == "https://git.example:8443/org/app.git/info/lfs"
    )
    assert (
        lfs_endpoint(parse_repo_url("git@git.example:org/app.git", field="f"))
        == "ssh://git@git.example/org/app.git"
    )


def test_sizes_are_checked_per_object_then_in_all() -> None:
    limits = LfsLimits(max_object_bytes=100, max_total_bytes=150)
    assert check_sizes([("a", LfsPointer(OID, 100))], limits, where="w") == 100
    with pytest.raises(LimitExceeded, match=r"w: the Git LFS file 'b' is 101 bytes"):
        check_sizes([("b", LfsPointer(OID, 101))], limits, where="w")
    with pytest.raises(LimitExceeded, match="total 200 bytes, more than max_lfs_bytes"):
        check_sizes([("a", LfsPointer(OID, 100)), ("b", LfsPointer(OID, 100))], limits, where="w")
