"""Conversations: follow-up questions answered as standalone ones, and the turns kept in the home.

`Trove.ask(question, conversation=…)` rewrites a follow-up ("and in April?") into the question it
stands for from the last turns (`rewriting`), reuses the query of a structured answer it refines
(`follow_up`), and returns the standalone question as `asked_as`. `ConversationStore` keeps every
turn (the whole answer object) in the Trove home; `export` writes one as Markdown."""

from engine.conversations.turns import Conversation, Turn

__all__ = ["Conversation", "Turn"]
