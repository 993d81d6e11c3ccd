"""E-mail (.eml): the message under its subject: header line, body (plain, else HTML) and the
attachments Trove reads (engine.ingest.mail)."""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

from engine.errors import SkipFile
from engine.ingest.mail import ParserFor, add_message
from engine.ingest.parsed import DocBuilder, ParsedDoc


class Eml:
    """Built with the registry's `parser_for`, which reads its attachments."""

    KIND = "email"
    EXTENSIONS = (".eml",)
    UNPACKS = False

    def __init__(self, parser_for: ParserFor) -> None:
        self.parser_for = parser_for

    def parse(self, path: Path) -> ParsedDoc:
        data = path.read_bytes()
        if not data.strip():
            raise SkipFile("empty file")
        message = email.message_from_bytes(data, policy=email.policy.default)
        builder = DocBuilder()
        fields = add_message(builder, message, self.parser_for)
        return builder.build(fields.get("subject") or path.stem, {"from": fields.get("from", "")},
                             page_fields={None: fields})
