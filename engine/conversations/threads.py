"""The conversations a Trove keeps: opening one (given, the latest, or new), turning a follow-up into
the question it stands for, and adding each answered turn, with its cited files' states."""

from __future__ import annotations

import time

from engine.conversations.follow_up import changed_files, file_states
from engine.conversations.rewriting import standalone
from engine.conversations.store import ConversationStore, title_of
from engine.conversations.turns import Conversation, Turn
from engine.errors import NoSuch
from engine.models.loaded import Models
from engine.result import AskResult
from engine.retrieval.gathering import timed
from engine.scope import Scope
from local_stores.catalog import Catalog


class Threads:
    def __init__(self, store: ConversationStore, catalog: Catalog, models: Models) -> None:
        self.store, self.catalog, self.models = store, catalog, models

    def open(self, conversation_id: int | None, title: str, scope: Scope | None, follow_up: bool,
             keep: bool) -> Conversation:
        """A stored conversation (`conversation_id`), the latest one (`follow_up`), or a new one,
        stored when `keep` and the store can be written, else held in memory only; NoSuch when the
        one asked for is not there."""
        if conversation_id is not None:
            return self.store.get(conversation_id)
        if follow_up:
            latest = self.store.latest()
            if latest is None:
                raise NoSuch("there is no conversation to follow up yet: ask a question first")
            return latest
        if keep and not self.store.read_only:
            return self.store.start(title, scope)
        return Conversation(title=title, scope=scope)

    def standalone(self, question: str, turns: list[Turn], timings: dict[str, float]) -> str:
        """The follow-up as the question it stands for (timed as "rewrite"); `question` without turns."""
        if not turns:
            return question
        with timed(timings, "rewrite"):
            return standalone(self.models.llm, question, turns)

    def add(self, conversation: Conversation, result: AskResult) -> None:
        """The answered turn added to `conversation` (and stored with it), titled by its first question."""
        turn = Turn(result, file_states(result, self.catalog), time.time())
        if not conversation.title:
            conversation.title = title_of(result.question)
            if conversation.id is not None:
                self.store.rename(conversation.id, conversation.title)
        if conversation.id is None:
            conversation.turns.append(turn)
        else:
            self.store.add(conversation, turn)

    def changed_since(self, turn: Turn) -> dict[str, str]:
        """The turn's cited files removed or changed since it was answered (path -> "removed"/"changed")."""
        return changed_files(turn, self.catalog)
