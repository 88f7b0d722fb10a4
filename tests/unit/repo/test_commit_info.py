"""Author, date and message read from a raw commit object."""

from app.repo.commit_info import MAX_MESSAGE, parse_commit

RAW = (
    b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
    b"parent 0123456789abcdef0123456789abcdef01234567\n"
    b"author Jane Doe <jane@example.com> 1700000000 +0130\n"
    b"committer CI <ci@example.com> 1700000100 +0000\n"
    b"gpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n"
    b"\n"
    b"Scale the web tier\n\nTwo more replicas for the sale.\n"
)


def test_author_date_and_message() -> None:
    info = parse_commit(RAW)
    assert info.author == "Jane Doe <jane@example.com>"
    assert info.date == "2023-11-14T22:13:20Z"
    assert info.message == "Scale the web tier\n\nTwo more replicas for the sale."


def test_a_long_message_is_cut_saying_so() -> None:
    info = parse_commit(b"author A <a@b> 0 +0000\n\n" + b"x" * (MAX_MESSAGE + 10))
    assert len(info.message) < MAX_MESSAGE + 20 and info.message.endswith("(cut)")


def test_a_commit_without_author_has_empty_fields() -> None:
    assert parse_commit(b"tree abc\n\nmsg").author == ""
