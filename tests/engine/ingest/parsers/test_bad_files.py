"""Empty, mislabelled and corrupt files of the newer document kinds: each refused with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import ParseError, SkipFile
from tests.engine.ingest.parsers import parsed

CASES = [  # (file name, its bytes, the error, what its reason says)
    ("empty.rtf", b"  \n", SkipFile, "empty"),
    ("renamed.rtf", b"%PDF-1.4 not rich text", ParseError, "not an RTF document"),
    ("empty.mbox", b"", SkipFile, "empty mailbox"),
    ("renamed.mbox", b"Subject: no envelope line\n\nhello\n", ParseError, "not an mbox mailbox"),
    ("empty.eml", b"\n\n", SkipFile, "empty"),
    ("empty.msg", b"", SkipFile, "empty"),
    ("cut.msg", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100), ParseError, r"corrupt \.msg"),
    ("cut.pptx", b"PK\x03\x04 this zip ends here", ParseError, r"corrupt \.pptx"),
    ("notes.pptx", b"Just some text someone renamed.\n", ParseError, r"corrupt \.pptx"),
    ("cut.odp", b"PK\x03\x04 this zip ends here", ParseError, r"corrupt \.odp"),
    ("notes.odp", b"Just some text someone renamed.\n", ParseError, r"corrupt \.odp"),
    ("empty.doc", b"", SkipFile, "empty"),
    ("renamed.doc", b"{\\rtf1 really an RTF}", ParseError, "not a Word 97–2003 document: it is not a Compound File"),
    ("cut.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100), ParseError, r"corrupt \.doc"),
    ("empty.ppt", b"", SkipFile, "empty"),
    ("renamed.ppt", b"not a deck", ParseError, "not a PowerPoint 97–2003 deck: it is not a Compound File"),
    ("cut.ppt", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100), ParseError, r"corrupt \.ppt"),
]


@pytest.mark.parametrize(("name", "data", "error", "reason"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_file_is_refused_with_its_reason(tmp_path: Path, name: str, data: bytes, error: type, reason: str):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(error, match=reason):
        parsed(path)
