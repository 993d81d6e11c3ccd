"""E-mail messages into a document: each message a section under its subject, with its header
line, its body, and the text of the attachments Trove can read under headings of their own (an
attachment is cited as part of its message: "… > Attachment: contract.pdf"). Used by the .eml and
the mailbox parsers."""

from __future__ import annotations

import datetime as dt
import email.utils
import tempfile
from collections.abc import Callable
from email.message import EmailMessage, Message
from pathlib import Path

from engine.ingest.parsed import DocBuilder, ParsedDoc
from engine.ingest.parsers.html import add_html
from engine.ingest.parsers.plain import paragraphs

ParserFor = Callable[[Path], Callable[[Path], ParsedDoc] | None]  # parsers.parser_for: a file's reader, or None
ATTACHMENT_MAX_MB = 25  # larger attachments are named, not read
MAIL_KINDS = (".eml", ".mbox", ".msg")  # attached mail is named, not read (no nesting without end)


def add_message(builder: DocBuilder, message: Message, parser_for: ParserFor,
                page: int | None = None) -> dict[str, str]:
    """Append one message to `builder` (its subject a level-1 heading); returns its from/to/date/subject
    for the locators of its items."""
    fields = header_fields(message)
    builder.heading(1, fields.get("subject") or "(no subject)", page)
    said = {name: " ".join(_header(message, name).split()) for name in ("from", "to", "cc", "date")}  # as written
    builder.paragraph("; ".join(f"{name.title()}: {value}" for name, value in said.items() if value), page)
    _add_body(builder, message, page)
    _add_attachments(builder, message, parser_for, page)
    return fields


def header_fields(message: Message) -> dict[str, str]:
    """From, to, subject as written and the date in ISO form; only those the message has."""
    fields = {name: " ".join(_header(message, name).split()) for name in ("from", "to", "subject")}
    if when := sent_at(message):
        fields["date"] = when.isoformat()
    return {name: value for name, value in fields.items() if value}


def sent_at(message: Message) -> dt.datetime | None:
    """The message's Date header as a time, None when it has none or it cannot be read."""
    try:
        return email.utils.parsedate_to_datetime(_header(message, "date"))
    except (TypeError, ValueError, IndexError):
        return None


def _header(message: Message, name: str) -> str:
    try:
        return str(message.get(name, "") or "")
    except (ValueError, LookupError):  # a malformed or undecodable header
        return ""


def _add_body(builder: DocBuilder, message: Message, page: int | None) -> None:
    body = message.get_body(preferencelist=("plain", "html")) if isinstance(message, EmailMessage) else None
    if body is None:
        return
    content = _content(body)
    if body.get_content_subtype() == "html":
        add_html(builder, content, page, below=1)
        return
    for para in paragraphs(content):
        builder.paragraph(para, page)


def _content(part: Message) -> str:
    """A text part decoded; an unknown charset is read as UTF-8 with replacements."""
    try:
        return str(part.get_content())  # type: ignore[attr-defined]  # an EmailMessage part
    except (LookupError, ValueError, AttributeError):
        data = part.get_payload(decode=True)
        return data.decode("utf-8", "replace") if isinstance(data, bytes) else ""


def _add_attachments(builder: DocBuilder, message: Message, parser_for: ParserFor, page: int | None) -> None:
    """The attachments that were not read named in one line, then the text of each one that was
    under "Attachment: NAME"."""
    if not isinstance(message, EmailMessage):
        return
    read, named = [], []
    for part in message.iter_attachments():
        name = Path(part.get_filename() or "").name
        if not name:
            continue
        doc, why = _read_attachment(name, part, parser_for)
        if doc is not None:
            read.append((name, doc))
        else:
            named.append(f"{name} ({why})")
    if named:
        builder.paragraph("Other attachments: " + "; ".join(named), page)
    for name, doc in read:
        builder.heading(2, f"Attachment: {name}", page)
        _replay(builder, doc, page)


def _read_attachment(name: str, part: Message, parser_for: ParserFor) -> tuple[ParsedDoc | None, str]:
    """The attachment's text, or None and why it was not read."""
    data = part.get_payload(decode=True)
    parse = None if Path(name).suffix.lower() in MAIL_KINDS else parser_for(Path(name))
    if parse is None or not isinstance(data, bytes):
        return None, f"a {Path(name).suffix.lower() or 'file'} file, not read"
    if len(data) > ATTACHMENT_MAX_MB * 2**20:
        return None, f"over {ATTACHMENT_MAX_MB} MB, not read"
    with tempfile.TemporaryDirectory(prefix="trove-attachment-") as folder:
        path = Path(folder) / f"attachment{Path(name).suffix.lower()}"
        path.write_bytes(data)
        try:
            doc = parse(path)
        except Exception as exc:  # one bad attachment must not lose the mailbox
            return None, f"unreadable: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
    if not doc.blocks:
        return None, "no text layer (a scan?), not read"
    return doc, ""


def _replay(builder: DocBuilder, doc: ParsedDoc, page: int | None) -> None:
    """The attachment's blocks under the current heading, its own headings below it."""
    shown: tuple[str, ...] = ()
    for block in doc.blocks:
        same = next((i for i, (a, b) in enumerate(zip(shown, block.heading, strict=False)) if a != b),
                    min(len(shown), len(block.heading)))
        for level, title in enumerate(block.heading[same:], start=3 + same):
            builder.heading(level, title, page)
        shown = block.heading
        builder.paragraph(block.text, page)
