"""Mailboxes (.mbox, and Apple Mail's `NAME.mbox/mbox`): each message a section numbered in the
mailbox order (its locator: message N with from/to/date/subject), read as in engine.ingest.mail."""

from __future__ import annotations

import email
import email.policy
import mailbox
from pathlib import Path
from typing import BinaryIO

from engine.errors import ParseError, SkipFile
from engine.ingest.mail import AttachedTables, MailParser, add_mail, from_message
from engine.ingest.parsed import DocBuilder, ParsedDoc
from engine.ingest.pictures import Pictures

MAILBOX_PICTURES = 200  # attached pictures looked at per mailbox (about a second each on 2 cores)


class Mbox(MailParser):
    KIND = "mailbox"
    EXTENSIONS = (".mbox",)

    def parse(self, path: Path) -> ParsedDoc:
        _check_start(path)
        builder, pictures, tables = DocBuilder(), Pictures(MAILBOX_PICTURES), AttachedTables()
        fields: dict[int | None, dict[str, str]] = {}
        box = mailbox.mbox(path, factory=_message, create=False)  # type: ignore[arg-type]  # any Message will do
        try:
            for number, message in enumerate(box, start=1):
                mail = from_message(message)
                add_mail(builder, mail, self.parser_for, page=number, pictures=pictures, tables=tables)
                fields[number] = mail.fields()
        finally:
            box.close()
        title = path.parent.stem if path.name == "mbox" else path.stem
        doc = builder.build(title, {"messages": len(fields)}, page_kind="message", page_fields=fields)
        doc.title = title  # the mailbox's name, not its first subject
        doc.pictures, doc.attached_tables = pictures.kept, tables.kept
        return doc


def _message(file: BinaryIO) -> email.message.Message:
    return email.message_from_binary_file(file, policy=email.policy.default)


def _check_start(path: Path) -> None:
    """SkipFile for an empty mailbox, ParseError for a file that is not one (mbox starts with "From ")."""
    with path.open("rb") as file:
        start = file.read(5)
    if not start.strip():
        raise SkipFile("empty mailbox (no messages)")
    if start != b"From ":
        raise ParseError("not an mbox mailbox: it does not start with a 'From ' line")
