"""The training-free router: the LLM reads the label definitions and a few examples, is told which
corpora exist, and names the labels (grammar-constrained JSON). Its choice is not a calibrated
probability: chosen labels get `CHOSEN` as confidence, in the order the model gave them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from engine.generation.budget import Budget
from engine.generation.untrusted import cut_question
from engine.routing.base import Route, RouteRequest
from engine.routing.decision import EXCLUSIVE

if TYPE_CHECKING:
    from engine.models.loaded import Models
    from engine.runtimes.llm import JsonChatModel
    from engine.settings import Settings

CHOSEN = 0.9


class HoldsLLM(Protocol):
    """Where the router finds its LLM (`engine.models.loaded.Models`): read at the first question."""

    @property
    def llm(self) -> JsonChatModel: ...


DEFINITIONS = {
    "none": "general knowledge or conversation; needs none of the user's files",
    "paragraph": "one specific fact stated in a passage of a document, note, email or PDF",
    "document": "a whole document or long section: summaries, overviews, comparisons within a file",
    "table": "totals, counts, averages, filters or rankings over rows of spreadsheets, CSVs or databases (SQL)",
    "graph": "relationships and paths between people, notes or things in a property graph (Cypher)",
    "rdf": "facts in RDF / linked data the user keeps: catalogues, ontologies, knowledge graphs (SPARQL)",
    "image": "finding or asking about whole photos",
    "region": "a detail inside a photo: an object, a face, text on a sign, how many of something",
    "clip": "a moment or scene inside a video (when something happens)",
    "video": "a whole video: which video, or about all of it",
}
EXAMPLES = [
    ("What is the capital of Portugal?", ["none"]),
    ("What's the deposit amount in my rental contract?", ["paragraph"]),
    ("Summarise the minutes of last week's board meeting", ["document"]),
    ("How much did I spend on fuel in 2024?", ["table"]),
    ("Which of my notes link to the reading list?", ["graph"]),
    ("Which albums in my music catalogue were released before 1980?", ["rdf"]),
    ("Show me photos of the lake at sunrise", ["image"]),
    ("What does the street sign say in the photo from Porto?", ["region"]),
    ("When does the cake come out in the birthday video?", ["clip"]),
    ("Which video is from the Norway trip?", ["video"]),
    ("How much was the hotel in Rome and what did I write about the room?", ["table", "paragraph"]),
]
SYSTEM = """You route a user's question to the kinds of sources that can answer it. Kinds:
{definitions}
Pick the one kind that fits best; add a second only when the question clearly needs two. Use only the kinds \
listed as available."""
# Every kind and example, whichever are available: the system prompt is then the same for every
# question, so its evaluated state is kept (runtimes/prefixes.py) and a question pays only for its
# own line; the grammar limits the answer to the available kinds.
PROMPT = (SYSTEM.format(definitions="\n".join(f"- {label}: {text}" for label, text in DEFINITIONS.items()))
          + "\n\nExamples:\n" + "\n".join(f"Question: {q}\nKinds: {', '.join(labels)}" for q, labels in EXAMPLES))


class LLMRouter:
    name = "llm"

    def __init__(self, models: HoldsLLM) -> None:
        self.models = models  # its LLM is loaded when a question first needs it

    @classmethod
    def build(cls, models: Models, settings: Settings) -> LLMRouter:  # noqa: ARG003
        return cls(models)

    def route(self, request: RouteRequest, most: int = 2) -> list[Route]:
        """At most `most` labels: the ensemble asks for one, the likeliest kind among its shortlist."""
        question, available = request.question, request.available
        allowed = ["none", *[label for label in DEFINITIONS if label in available and label != "none"]]
        schema = {"type": "object", "properties": {"kinds": {"type": "array", "items": {"type": "string",
                                                                                       "enum": allowed},
                                                             "minItems": 1, "maxItems": most}},
                  "required": ["kinds"]}
        llm = self.models.llm
        question = Budget.of(llm).question(cut_question(question)[0])
        out = llm.chat_json(
            [{"role": "system", "content": PROMPT},
             {"role": "user", "content": f"Available kinds: {', '.join(allowed)}\nQuestion: {question}"}],
            schema, max_tokens=40)
        chosen = [label for label in dict.fromkeys(out.get("kinds", [])) if label in allowed]
        if len(chosen) > 1:
            chosen = [label for label in chosen if label != "none"]
        for a, b in EXCLUSIVE:
            if a in chosen and b in chosen:
                chosen.remove(b if chosen.index(a) < chosen.index(b) else a)
        return [Route(label, CHOSEN, self.name) for label in chosen] or [Route("none", CHOSEN, self.name)]
