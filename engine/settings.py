"""Settings: where Trove keeps its data and how hard it may work.

Read from `TROVE_HOME/settings.toml` when present, then from `TROVE_*` environment variables.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import platformdirs


def default_home() -> Path:
    """The Trove home: `TROVE_HOME`, else the XDG data folder."""
    env = os.environ.get("TROVE_HOME")
    return Path(env).expanduser() if env else Path(platformdirs.user_data_dir("trove"))


def user_models_dir() -> Path:
    """The user's one models folder, shared by every Trove home: `TROVE_MODELS_DIR`, else `models`
    in the XDG data folder (the default home's), so `--home` never needs a second install."""
    env = os.environ.get("TROVE_MODELS_DIR")
    return Path(env).expanduser() if env else Path(platformdirs.user_data_dir("trove")) / "models"


def default_models_dir(home: Path) -> Path:
    """Installed models for `home`: the user's folder, unless `TROVE_MODELS_DIR` is unset and the
    home holds models of its own (installed there before models were shared per user)."""
    own = home / "models"
    if "TROVE_MODELS_DIR" not in os.environ and own.is_dir() and any(p.is_dir() for p in own.iterdir()):
        return own
    return user_models_dir()


@dataclass(frozen=True)
class Settings:
    home: Path = field(default_factory=default_home)
    models_dir: Path | None = None
    # where the index (catalog and corpora) lives: "" the home's SQLite file; "postgresql://user@host/db"
    # an index on that server a team shares (one machine indexes the share, every Trove asks it)
    index_backend: str = ""
    index_passfile: str = ""  # a libpq password file (0600) for index_backend's login; else PGPASSWORD
    threads: int = 2
    max_file_mb: float = 100.0
    max_video_mb: float = 8192.0  # videos are big; they are decoded as a stream, never loaded whole
    max_mailbox_mb: float = 4096.0  # a mailbox is read a message at a time; its attachments are most of it
    paragraph_words: int = 100
    document_tokens: int = 4000
    embed_batch: int = 32  # texts per embedding batch at most (and 512 tokens, engine.runtimes.text_embedder)
    llm: str = "llm"  # a role ("llm", "llm-fast", "llm-smoke") or a model name from the catalog
    llm_context: int = 4096
    answer_max_tokens: int = 320
    evidence_items: int = 6
    evidence_tokens: int = 2200
    search_k: int = 10
    min_relevance: float = 0.30  # below this dense cosine, and with no keyword match, nothing is relevant
    query_timeout_s: float = 10.0
    server_check_s: float = 300.0  # a connected server is asked at most this often whether its tables or labels changed
    query_memory_mb: int = 2048  # memory a generated query may use in DuckDB, Kùzu or the SPARQL worker
    ingest_memory_mb: int = 2048  # memory a parser run in a worker process (isolated) may use
    parse_timeout_s: float = 120.0  # an isolated parser (JSON records, databases' schemas) is stopped after this
    max_unpacked_mb: float = 200.0  # a zip-based file (docx, xlsx, ods, epub, odt) that unpacks to more is refused
    max_question_chars: int = 2000  # longer questions are cut, with a notice, before routing and prompting
    follow_links: bool = False  # follow symbolic links that lead out of a followed folder
    query_rows: int = 50  # rows a generated query may return into the evidence
    query_tries: int = 3  # writes of a query: the first and up to two repairs from the engine's error
    router: str = "ensemble"  # rule | trained | llm | ensemble (engine.routing.ROUTERS)
    router_threshold: float = 0.8  # a label passes when its probability clears this (UniversalRAG)
    router_confident: float = 0.5  # the ensemble trusts the trained router above this, asks the LLM below
    router_source_level: float = 0.5  # a structured source this similar to a question adds its route (ensemble)
    router_source_margin: float = 0.1  # ... and replaces another structured route whose sources are this much farther
    router_source_switch: float = 0.4  # ... when it is at least this similar (bench.router, RESULTS §41)
    route_evidence_margin: float = 0.1  # text vs structured: the passage or the source that fits this much better wins
    query_examples: int = 3  # few-shot examples per query, the nearest in meaning to the question
    source_candidates: int = 3  # structured sources the prefilter keeps for the LLM to choose from
    sources_per_question: int = 1
    source_min_similarity: float = 0.30  # below this, no structured source is about the question
    source_value_weight: float = 0.05  # similarity added per word of a value the question names, rarer counts more
    source_field_weight: float = 0.05  # ... and per word naming one of its columns or properties, rarer counts more
    source_year_weight: float = 0.05  # ... added when its file is named for the year asked (taken: another year)
    source_llm_choice: bool = False  # the LLM chooses among close candidates (it chose worse: RESULTS §24)
    source_clear_lead: float = 0.1  # ... and is not asked when the first is this far ahead of the next
    keep_conversations: bool = True  # every question and answer is kept in the home (trove conversations)
    follow_up_turns: int = 1  # the earlier turns a follow-up is rewritten from (each turn's own is standalone)
    follow_up_source_bonus: float = 0.1  # similarity added to the source of the query a follow-up refines
    detector: str = "default"  # the object detector: a catalog tag (default/fast/better) or a model name
    photo_ocr: bool = True  # read text in photos and video keyframes (the slowest vision step)
    pdf_ocr: bool = True  # read scanned PDF pages (no text layer) with the photos' OCR
    document_pictures: bool = True  # the pictures inside PDF, Word, PowerPoint, OpenDocument, EPUB files and
    # those attached to e-mail become photos
    region_overlap: float = 0.8  # GranuRAG: a box this much inside a larger one of its kind replaces it
    object_min_score: float = 0.35  # detector scores below these are not regions
    face_min_score: float = 0.7
    text_min_score: float = 0.5
    similar_photo_min: float = 0.6  # image-embedding cosine above which an indexed photo is "like" the one asked with
    min_clip_s: float = 2.0  # video clips shorter than this merge into a neighbour
    max_clip_s: float = 30.0  # longer clips are split

    def __post_init__(self) -> None:
        object.__setattr__(self, "home", Path(self.home).expanduser())
        models_dir = default_models_dir(self.home) if self.models_dir is None else Path(self.models_dir).expanduser()
        object.__setattr__(self, "models_dir", models_dir)  # settings.toml gives it as text

    @property
    def models_folder(self) -> Path:
        """Where models are installed: `models_dir`, which loading always sets (to the default folder)."""
        return self.models_dir or default_models_dir(self.home)

    @property
    def index_path(self) -> Path:
        return self.home / "index" / "trove.db"

    @property
    def conversations_path(self) -> Path:
        return self.home / "conversations" / "conversations.db"

    @property
    def tables_path(self) -> Path:
        return self.home / "tables" / "tables.duckdb"

    @property
    def graphs_path(self) -> Path:
        return self.home / "graphs"

    @property
    def rdf_path(self) -> Path:
        return self.home / "rdf"

    @property
    def region_min(self) -> dict[str, float]:
        """The lowest score a region of each kind (object, face, text) is kept with."""
        return {"object": self.object_min_score, "face": self.face_min_score, "text": self.text_min_score}

    @property
    def thumbs_path(self) -> Path:
        return self.home / "thumbs"

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * 1024 * 1024)

    def with_(self, **changes: object) -> Settings:
        # mypy cannot match kwargs of mixed types to each field's type; replace() takes them as given
        return replace(self, **changes)  # type: ignore[arg-type]


_ENV_CASTS: dict[type, Callable[[str], object]] = {
    int: int, float: float, str: str, bool: lambda v: v.strip().lower() in ("1", "true", "yes", "on")}


def load_settings(home: Path | str | None = None, **overrides: object) -> Settings:
    """Settings for `home`: defaults < settings.toml < TROVE_* env < explicit overrides."""
    base_home = Path(home).expanduser() if home else default_home()
    values: dict[str, object] = {}
    toml_path = base_home / "settings.toml"
    if toml_path.is_file():
        with toml_path.open("rb") as fh:
            values.update(tomllib.load(fh))
    for f in fields(Settings):
        env = os.environ.get(f"TROVE_{f.name.upper()}")
        if env is not None and f.name not in ("home", "models_dir"):
            cast = _ENV_CASTS.get(type(getattr(Settings(home=base_home), f.name)), str)
            values[f.name] = cast(env)
    values.update({k: v for k, v in overrides.items() if v is not None})
    values["home"] = base_home
    known = {f.name for f in fields(Settings)}
    unknown = set(values) - known
    if unknown:
        raise ValueError(f"{toml_path}: unknown settings {sorted(unknown)}")
    return Settings(**values)  # type: ignore[arg-type]  # as in with_: mixed types, matched by field name
