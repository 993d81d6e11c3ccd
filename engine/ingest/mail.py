"""E-mail messages into a document: each message a section under its subject, with its header
line, its body, and the text of the attachments Trove can read under headings of their own (an
attachment is cited as part of its message: "… > Attachment: contract.pdf"). Attached pictures, and
the pictures inside attached documents, become the document's pictures (photos, cited as a picture
of their message). A message reaches here as a `Mail`, whatever it was read from (.eml, a mailbox,
an Outlook .msg). Attached spreadsheets and CSV files are kept apart (`AttachedTables`): the indexer
loads each as a table of its own, queried with SQL like any table and cited as an attachment of its
message."""

from __future__ import annotations

import datetime as dt
import email.utils
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage, Message
from pathlib import Path

from engine.ingest import tables
from engine.ingest.extensions import PHOTO
from engine.ingest.parsed import AttachedTable, DocBuilder, ParsedDoc
from engine.ingest.parsers.html import add_html
from engine.ingest.parsers.plain import paragraphs
from engine.ingest.pictures import Pictures

ParserFor = Callable[[Path], Callable[[Path], ParsedDoc] | None]  # parsers.parser_for: a file's reader, or None
ATTACHMENT_MAX_MB = 25  # larger attachments are named, not read
MAIL_SUFFIXES = (".eml", ".mbox", ".msg")  # attached mail is named, not read (no nesting without end)
FIELD_CHARS = 200
TABLE_KINDS = ("csv", "tsv", "workbook")  # engine.ingest.tables kinds an attachment is loaded as
MAX_ATTACHED_TABLES = 100  # per mail file (a mailbox); more are named, not loaded


@dataclass
class Attachment:
    name: str
    data: bytes | None  # None: not kept as bytes (attached mail, a link), named only


@dataclass
class Mail:
    """One message: its headers as written and for locators, its body and its attachments."""

    subject: str = ""
    sender: str = ""
    to: str = ""
    cc: str = ""
    sent: dt.datetime | None = None
    sent_as_written: str = ""  # the Date header as the mail program wrote it
    text: str = ""
    html: str = ""
    attachments: list[Attachment] = field(default_factory=list)

    def fields(self) -> dict[str, str]:
        """From, to, subject and the ISO date, for the locators of the message's items (each cut to
        FIELD_CHARS: a list's hundred recipients would be copied into every item of the message)."""
        found = {"from": self.sender, "to": self.to, "subject": self.subject,
                 "date": self.sent.isoformat() if self.sent else ""}
        return {name: _cut(" ".join(value.split())) for name, value in found.items() if value.strip()}


class AttachedTables:
    """Collects the table files attached to a mail file's messages, up to MAX_ATTACHED_TABLES."""

    def __init__(self, limit: int = MAX_ATTACHED_TABLES) -> None:
        self.kept: list[AttachedTable] = []
        self.limit = limit

    def add(self, attachment: Attachment, page: int | None, message: str) -> str:
        """Why the attachment was not kept, or "" when it was."""
        if len(self.kept) >= self.limit:
            return f"one of more than {self.limit} attached tables, not loaded"
        assert attachment.data is not None  # only attachments kept as bytes are tables (is_table)
        if len(attachment.data) > ATTACHMENT_MAX_MB * 2**20:
            return f"over {ATTACHMENT_MAX_MB} MB, not loaded"
        self.kept.append(AttachedTable(attachment.name, attachment.data, page, message))
        return ""


class MailParser:
    """What the mail kinds' parsers share: they are built with the registry's `parser_for`, which
    reads their attachments."""

    UNPACKS = False
    VERSION = 2  # 2: a table row of an HTML body as one paragraph

    def __init__(self, parser_for: ParserFor) -> None:
        self.parser_for = parser_for

    def document(self, mail: Mail, path: Path) -> ParsedDoc:
        """A file holding one message, titled by its subject."""
        builder, pictures, tables = DocBuilder(), Pictures(), AttachedTables()
        add_mail(builder, mail, self.parser_for, pictures=pictures, tables=tables)
        doc = builder.build(mail.subject or path.stem, {"from": mail.sender}, page_fields={None: mail.fields()})
        doc.pictures, doc.attached_tables = pictures.kept, tables.kept
        return doc


def add_mail(builder: DocBuilder, mail: Mail, parser_for: ParserFor, page: int | None = None,
             pictures: Pictures | None = None, tables: AttachedTables | None = None) -> None:
    """Append one message to `builder`, its subject a level-1 heading; its pictures to `pictures`,
    its attached table files to `tables`."""
    builder.heading(1, mail.subject or "(no subject)", page)
    said = {"From": mail.sender, "To": mail.to, "Cc": mail.cc,
            "Date": mail.sent_as_written or (mail.sent.isoformat() if mail.sent else "")}
    builder.paragraph("; ".join(f"{name}: {' '.join(value.split())}" for name, value in said.items() if value.strip()),
                      page)
    if mail.text.strip() or not mail.html:
        for para in paragraphs(mail.text):
            builder.paragraph(para, page)
    else:
        add_html(builder, mail.html, page, below=1)
    _add_attachments(builder, mail, parser_for, page, pictures, tables)


def _cut(value: str) -> str:
    return value if len(value) <= FIELD_CHARS else value[:FIELD_CHARS - 1].rstrip() + "…"


# -- from an internet message (.eml, mailboxes) ----------------------------------------------------------
def from_message(message: Message) -> Mail:
    """The parts of an internet message that Trove reads."""
    date = _header(message, "date")
    mail = Mail(_header(message, "subject"), _header(message, "from"), _header(message, "to"), _header(message, "cc"),
                _sent_at(date), date)
    if not isinstance(message, EmailMessage):
        return mail
    body = message.get_body(preferencelist=("plain", "html"))
    if body is not None:
        setattr(mail, "html" if body.get_content_subtype() == "html" else "text", _content(body))
    for part in message.iter_attachments():
        if name := Path(part.get_filename() or "").name:
            data = part.get_payload(decode=True)
            mail.attachments.append(Attachment(name, data if isinstance(data, bytes) else None))
    return mail


def _sent_at(date: str) -> dt.datetime | None:
    try:
        return email.utils.parsedate_to_datetime(date)
    except (TypeError, ValueError, IndexError):
        return None


def _header(message: Message, name: str) -> str:
    try:
        return " ".join(str(message.get(name, "") or "").split())
    except (ValueError, LookupError):  # a malformed or undecodable header
        return ""


def _content(part: Message) -> str:
    """A text part decoded; an unknown charset is read as UTF-8 with replacements."""
    try:
        return str(part.get_content())  # type: ignore[attr-defined]  # an EmailMessage part
    except (LookupError, ValueError, AttributeError):
        data = part.get_payload(decode=True)
        return data.decode("utf-8", "replace") if isinstance(data, bytes) else ""


# -- attachments -----------------------------------------------------------------------------------------
def _add_attachments(builder: DocBuilder, mail: Mail, parser_for: ParserFor, page: int | None,
                     pictures: Pictures | None, tables: AttachedTables | None) -> None:
    """The attachments that were not read named in one line, then the text of each one that was
    under "Attachment: NAME"; attached pictures, and those inside attached documents, to `pictures`;
    attached table files to `tables`."""
    read, named = [], []
    for attachment in mail.attachments:
        if pictures is not None and _is_picture(attachment):
            assert attachment.data is not None
            if pictures.add(attachment.data, page, f"attachment {attachment.name}"):
                named.append(f"{attachment.name} (a picture, looked at as a photo)")
                continue
        if tables is not None and is_table(attachment.name) and attachment.data is not None:
            why = tables.add(attachment, page, mail.subject)
            named.append(f"{attachment.name} ({why or 'a table, loaded to be queried'})")
            continue
        doc, why = _read_attachment(attachment, parser_for)
        if doc is not None:
            read.append((attachment.name, doc))
            if pictures is not None:
                for picture in doc.pictures:
                    pictures.add(picture.data, page, picture.alt or f"in attachment {attachment.name}")
        else:
            named.append(f"{attachment.name} ({why})")
    if named:
        builder.paragraph("Other attachments: " + "; ".join(named), page)
    for name, doc in read:
        builder.heading(2, f"Attachment: {name}", page)
        _replay(builder, doc, page)


def is_table(name: str) -> bool:
    """Whether an attachment of this name is loaded as a table (a spreadsheet, a CSV file)."""
    return tables.kind_of(Path(name)) in TABLE_KINDS


def _is_picture(attachment: Attachment) -> bool:
    return attachment.data is not None and Path(attachment.name).suffix.lower() in PHOTO


def _read_attachment(attachment: Attachment, parser_for: ParserFor) -> tuple[ParsedDoc | None, str]:
    """The attachment's text, or None and why it was not read."""
    suffix = Path(attachment.name).suffix.lower()
    parse = None if suffix in MAIL_SUFFIXES else parser_for(Path(attachment.name))
    if parse is None or attachment.data is None:
        return None, f"a {suffix or 'file'} file, not read"
    if len(attachment.data) > ATTACHMENT_MAX_MB * 2**20:
        return None, f"over {ATTACHMENT_MAX_MB} MB, not read"
    with tempfile.TemporaryDirectory(prefix="trove-attachment-") as folder:
        path = Path(folder) / f"attachment{suffix}"
        path.write_bytes(attachment.data)
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
