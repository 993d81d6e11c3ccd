"""E-mail (.eml): the message under its subject: header line, body (plain, else HTML) and the
attachments Trove reads (engine.ingest.mail)."""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

from engine.errors import SkipFile
from engine.ingest.mail import MailParser, from_message
from engine.ingest.parsed import ParsedDoc


class Eml(MailParser):
    KIND = "email"
    EXTENSIONS = (".eml",)

    def parse(self, path: Path) -> ParsedDoc:
        data = path.read_bytes()
        if not data.strip():
            raise SkipFile("empty file")
        return self.document(from_message(email.message_from_bytes(data, policy=email.policy.default)), path)
