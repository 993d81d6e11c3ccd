"""Outlook messages (.msg): a Compound File of MAPI properties (MS-OXMSG), read with olefile
(BSD; not extract-msg, which is GPL) into the same `Mail` as an .eml, attachments included."""

from __future__ import annotations

import datetime as dt
import email.utils
import struct
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import ParseError
from engine.ingest.archives import open_compound
from engine.ingest.mail import Attachment, Mail, MailParser
from engine.ingest.parsed import ParsedDoc

if TYPE_CHECKING:
    from olefile import OleFileIO

PROPERTIES = "__properties_version1.0"
SUBJECT, SENDER_NAME, SENDER_ADDRESS, SENDER_SMTP = 0x0037, 0x0C1A, 0x0C1F, 0x5D01
DISPLAY_TO, DISPLAY_CC, BODY, HTML = 0x0E04, 0x0E03, 0x1000, 0x1013
SUBMIT_TIME, DELIVERY_TIME = 0x0039, 0x0E06
LONG_FILENAME, FILENAME, DISPLAY_NAME, ATTACH_DATA = 0x3707, 0x3704, 0x3001, 0x3701
UNICODE, STRING8, BINARY, SYSTIME = 0x001F, 0x001E, 0x0102, 0x0040
_FILETIME_EPOCH = dt.datetime(1601, 1, 1, tzinfo=dt.UTC)


class Msg(MailParser):
    KIND = "outlook"
    EXTENSIONS = (".msg",)

    def parse(self, path: Path) -> ParsedDoc:
        return self.document(read(path), path)


def read(path: Path) -> Mail:
    """The message in `path`; SkipFile when empty, ParseError when it is no Outlook message."""
    with open_compound(path, "an Outlook message") as ole:
        if not ole.exists(PROPERTIES):
            raise ParseError("a Compound File, but not an Outlook message (it has no message properties)")
        return _mail(ole)


def _mail(ole: OleFileIO) -> Mail:
    name, address = _text(ole, "", SENDER_NAME), _text(ole, "", SENDER_SMTP) or _text(ole, "", SENDER_ADDRESS)
    sender = email.utils.formataddr((name, address)) if "@" in address else name or address
    sent = _time(ole, SUBMIT_TIME) or _time(ole, DELIVERY_TIME)
    html = _text(ole, "", HTML) or _bytes(ole, "", HTML).decode("utf-8", "replace")
    return Mail(_text(ole, "", SUBJECT), sender, _text(ole, "", DISPLAY_TO), _text(ole, "", DISPLAY_CC), sent,
                email.utils.format_datetime(sent) if sent else "", _text(ole, "", BODY), html, _attachments(ole))


def _attachments(ole: OleFileIO) -> list[Attachment]:
    storages = sorted({entry[0] for entry in ole.listdir(streams=True, storages=True)
                       if entry[0].lower().startswith("__attach_version1.0_#")})
    found = []
    for storage in storages:
        folder = storage + "/"
        name = _text(ole, folder, LONG_FILENAME) or _text(ole, folder, FILENAME) or _text(ole, folder, DISPLAY_NAME)
        data = _bytes(ole, folder, ATTACH_DATA) if ole.exists(folder + _stream(ATTACH_DATA, BINARY)) else None
        found.append(Attachment(Path(name).name or "attachment", data))  # no binary data: attached mail
    return found


def _stream(prop: int, kind: int) -> str:
    return f"__substg1.0_{prop:04X}{kind:04X}"


def _bytes(ole: OleFileIO, folder: str, prop: int) -> bytes:
    name = folder + _stream(prop, BINARY)
    return ole.openstream(name).read() if ole.exists(name) else b""


def _text(ole: OleFileIO, folder: str, prop: int) -> str:
    """A string property, Unicode or 8-bit (read as UTF-8, else Windows-1252), without its end NULs."""
    for kind, decode in ((UNICODE, lambda b: b.decode("utf-16-le", "replace")), (STRING8, _string8)):
        name = folder + _stream(prop, kind)
        if ole.exists(name):
            return decode(ole.openstream(name).read()).rstrip("\0").strip()
    return ""


def _string8(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def _time(ole: OleFileIO, prop: int) -> dt.datetime | None:
    """A time property of the message, from its properties stream: after a 32-byte header, 16-byte
    entries of tag, flags and an 8-byte FILETIME (100 ns since 1601, UTC)."""
    data = ole.openstream(PROPERTIES).read()
    wanted = (prop << 16) | SYSTIME
    for offset in range(32, len(data) - 15, 16):
        tag, _flags, value = struct.unpack_from("<IIQ", data, offset)
        if tag == wanted and value:
            return _FILETIME_EPOCH + dt.timedelta(microseconds=value // 10)
    return None
