"""Element grounding (GranuRAG): attribution precision/recall and unsupported-claim rate of answers about
photos, grounded (setting A) vs. given the whole inventory (setting C), on the example knowledge pack.

    .venv/bin/python -m bench.grounding [--settings A,C] [--llm default] [--limit 0] [--questions FILE]

Settings (GranuRAG's A and C, with a text-only LLM):
- A, grounded: the photo goes through the pipeline's own path (analyse -> regions in the photo's locator ->
  engine.retrieval.visual.grounded -> evidence.pack): one numbered evidence per kept region (pack element or
  generic "a cat" / text block), then the photo's metadata (file, folder, date, caption);
- C, whole inventory: no grounding; the photo's full indexed text (metadata plus what the detectors, classifier
  and OCR found: "Shows 1 cat", "Text in the photo: ...") and every inventory element (inventory_evidence);
- C-blind (optional): C with the metadata only (what A shows of the photo itself), the inventory and nothing
  of what the detectors found.

Scoring, per answer (micro-averaged over answers): the elements an answer names are the aliases of
bench/grounding_questions.toml found in its sentences plus the pack elements of the evidence each sentence
cites; a sentence or clause with a negation ("Chelsea is not in this picture") claims nothing.
Attribution precision = named elements in the question's gold set / named elements; recall = gold elements
named / gold elements. Unsupported-claim rate = answer sentences naming an element or entity that is not
visible in the photo / answer sentences. The answer check's own `unsupported` count (finalise) is reported
beside it. Grounding alone (no LLM): precision/recall of the pack elements `ground` keeps vs. what is visible.
Five of the photos are the example photos; four more are composed at run time in a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "bench" / "grounding_questions.toml"
PACK = ROOT / "examples" / "knowledge-pack" / "trove-pack.yaml"
PHOTOS = ROOT / "examples" / "photos"
SETTINGS = ("A", "C", "C-blind")
_NEGATION = re.compile(r"\b(?:not|no|never|none|neither|nor|without|cannot|absent)\b|n't\b", re.IGNORECASE)
_CLAUSES = re.compile(r",\s*(?:but|while|whereas|and|although)\b|;|\bbut\b", re.IGNORECASE)
_CITE = re.compile(r"\[(\d{1,3})\]")


# ------------------------------------------------------------------------------------------- composed photos

def _height(image: np.ndarray, height: int) -> np.ndarray:
    import cv2

    width = round(image.shape[1] * height / image.shape[0])
    return cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)


def _load(rel: str) -> np.ndarray:
    from engine.ingest.photos.image_io import load_photo

    return load_photo(PHOTOS / rel).image


def _sill() -> np.ndarray:  # the windowsill without the cat: the strips left and right of her, joined
    window = _load("home/chelsea-window.jpg")
    return np.hstack([window[:, :220], window[:, 640:]])


def _sign_top() -> np.ndarray:  # the sign above its bottom band: the route line is cut off
    return _load("2025-05-lisbon/tram-stop.jpg")[:300]


def _cup_and_cat() -> np.ndarray:
    return np.hstack([_height(_load("2025-05-lisbon/cafe-breakfast.jpg"), 600), _load("home/chelsea-window.jpg")])


def _stop_and_cup() -> np.ndarray:
    return np.hstack([_load("2025-05-lisbon/tram-stop.jpg"), _height(_load("2025-05-lisbon/cafe-breakfast.jpg"), 600)])


RECIPES: dict[str, Callable[[], np.ndarray]] = {
    "sill": _sill, "sign-top": _sign_top, "cup-and-cat": _cup_and_cat, "stop-and-cup": _stop_and_cup}


# ------------------------------------------------------------------------------------------------- scoring

@dataclass
class Names:
    """Which pack elements and entities an answer names."""

    aliases: dict[str, list[str]]  # "Entity/element" or "Entity" -> phrases
    patterns: dict[str, re.Pattern] = field(init=False)

    def __post_init__(self) -> None:
        self.patterns = {key: re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(a) for a in sorted(
            phrases, key=len, reverse=True)) + r")(?![\w-])", re.IGNORECASE) for key, phrases in self.aliases.items()}

    def named(self, text: str) -> set[str]:
        return {key for key, pattern in self.patterns.items() if pattern.search(text)}


def entity_of(key: str) -> str:
    return key.split("/", 1)[0]


def claims(answer: str, names: Names, cited_elements: dict[int, str]) -> list[dict]:
    """Per sentence of the answer: the elements and entities it claims are there (negated clauses say nothing)."""
    from engine.generation.answer import NOT_FOUND, split_sentences

    if answer.strip() == NOT_FOUND:
        return [{"sentence": answer, "elements": [], "entities": [], "negated": []}]
    out = []
    for sentence in split_sentences(answer):
        plain = _CITE.sub("", sentence)
        clauses = [c for c in _CLAUSES.split(plain) if c.strip()] or [plain]
        said: set[str] = set()
        negated: set[str] = set()
        for clause in clauses:
            (negated if _NEGATION.search(clause) else said).update(names.named(clause))
        if any(not _NEGATION.search(c) for c in clauses):  # citations back what the sentence affirms
            said |= {cited_elements[int(n)] for n in _CITE.findall(sentence) if int(n) in cited_elements}
        elements = sorted(k for k in said if "/" in k)
        entities = sorted({entity_of(k) for k in said})
        out.append({"sentence": sentence, "elements": elements, "entities": entities, "negated": sorted(negated)})
    return out


@dataclass
class Tally:
    """Micro-averaged counts over answers (or photos, for grounding alone)."""

    named: int = 0
    named_gold: int = 0
    gold: int = 0
    gold_named: int = 0
    e_named: int = 0
    e_named_gold: int = 0
    e_gold: int = 0
    e_gold_named: int = 0

    def add(self, named: set[str], gold: set[str]) -> None:
        self.named += len(named)
        self.named_gold += len(named & gold)
        self.gold += len(gold)
        self.gold_named += len(gold & named)
        ent_named, ent_gold = {entity_of(k) for k in named}, {entity_of(k) for k in gold}
        self.e_named += len(ent_named)
        self.e_named_gold += len(ent_named & ent_gold)
        self.e_gold += len(ent_gold)
        self.e_gold_named += len(ent_gold & ent_named)

    @staticmethod
    def ratio(a: int, b: int) -> str:
        return f"{a / b:.2f} ({a}/{b})" if b else "– (0/0)"

    def cells(self) -> list[str]:
        return [self.ratio(self.named_gold, self.named), self.ratio(self.gold_named, self.gold),
                self.ratio(self.e_named_gold, self.e_named), self.ratio(self.e_gold_named, self.e_gold)]


# ---------------------------------------------------------------------------------------------- evidence

def photo_item(path: Path, analysis, caption: str):  # noqa: ANN001, ANN201 (Analysis -> Item)
    """The photo as indexing stores it (engine.ingest.photos.items): its text and its regions."""
    from engine.corpora import PHOTO
    from engine.ingest.photos.image_io import load_photo
    from engine.ingest.photos.items import photo_text
    from local_stores.corpus_store import Item

    photo = load_photo(path)
    locator = {"width": photo.width, "height": photo.height,
               "regions": [dict(r.as_dict(), n=i) for i, r in enumerate(analysis.regions)]}
    return Item(PHOTO, str(path), photo_text(path, photo, analysis, caption, []), locator, title=path.name,
                file_id=1, id=1)


def grounded_setting(ctx, item, pipeline_settings) -> tuple[list, list[str], float]:  # noqa: ANN001
    """Setting A: the pipeline's grounded evidence for one photo; the kept element ids; seconds."""
    from engine.generation.evidence import pack
    from engine.retrieval.hybrid import Hit
    from engine.retrieval.visual import grounded

    t0 = time.perf_counter()
    hits = grounded(ctx, Hit(item, 1.0, {"dense": 1.0}))
    seconds = time.perf_counter() - t0
    decisions: list[dict] = next((h.item.locator.get("grounding", []) for kind, h in hits if kind == "image"), [])
    kept = list(dict.fromkeys(d["element"]["id"] for d in decisions if d["element"]))
    evidence = pack(hits, pipeline_settings.evidence_items, pipeline_settings.evidence_tokens)
    return evidence, kept, seconds


def inventory_setting(item, inventory, pack_name: str, blind: bool) -> list:  # noqa: ANN001
    """Setting C: the photo (full text, or only its metadata when `blind`) and every inventory element."""
    from engine.generation.evidence import Evidence
    from engine.grounding import inventory_evidence
    from engine.retrieval.visual import _CONTENT_LINES

    text = item.text
    if blind:
        text = "\n".join(line for line in text.splitlines()
                         if not line.startswith(_CONTENT_LINES) and not line.endswith(" visible."))
    out = [Evidence(1, "image", item.source, item.title, {}, text, 1.0)]
    for cite in inventory_evidence(inventory, start=2):
        line = re.sub(r"^\[\d+\]\s*", "", cite.line)
        out.append(Evidence(cite.n, "inventory", str(PACK), pack_name, {"element": cite.element.id}, line, 1.0))
    return out


# -------------------------------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", default="A,C", help=f"comma-separated, of {', '.join(SETTINGS)}")
    parser.add_argument("--llm", default="default")
    parser.add_argument("--limit", type=int, default=0, help="first N questions (0 = all)")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args(argv)
    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    if unknown := [s for s in settings if s not in SETTINGS]:
        parser.error(f"unknown setting(s) {unknown}; expected {SETTINGS}")

    from tqdm import tqdm

    from engine.generation.answer import generate
    from engine.grounding import Inventory, load_pack, reference_vectors
    from engine.ingest.photos import sidecars
    from engine.ingest.photos.analyse import VisionModels, analyse
    from engine.ingest.photos.image_io import load_photo
    from engine.models import ModelManager
    from engine.retrieval.visual import VisualContext
    from engine.runtimes.llm import LLM
    from engine.runtimes.text_embedder import TextEmbedder
    from engine.settings import Settings, default_home, default_models_dir

    spec = tomllib.loads(args.questions.read_text(encoding="utf-8"))
    questions = spec["question"][: args.limit or None]
    names = Names(spec["aliases"])
    pack = load_pack(PACK)
    inventory = Inventory.from_packs([pack])
    pack_ids = {e.id for e in inventory.elements}
    for key, photo in spec["photos"].items():
        if stray := set(photo["visible"]) - pack_ids:
            parser.error(f"photos.{key}.visible: not pack elements: {sorted(stray)}")
    for q in questions:
        if stray := set(q.get("gold", [])) - set(spec["photos"][q["photo"]]["visible"]):
            parser.error(f"question {q['text']!r}: gold elements not visible in {q['photo']}: {sorted(stray)}")

    manager = ModelManager(default_models_dir(default_home()))
    pipeline_settings = Settings()
    vision = VisionModels.from_manager(manager, threads=args.threads)
    for role, why in vision.missing.items():
        print(f"note: {role}: {why}", file=sys.stderr)
    embedder = TextEmbedder.from_manager(manager, threads=args.threads)
    references = reference_vectors(inventory, vision.embedder) if vision.embedder is not None else None
    ctx = VisualContext(None, None, embedder, vision.embedder, inventory, references)  # type: ignore[arg-type]
    t0 = time.perf_counter()
    llm = LLM.from_manager(manager, args.llm, n_ctx=pipeline_settings.llm_context, threads=args.threads)
    load_s = time.perf_counter() - t0

    # ---- each photo once: analyse (as indexing does) and ground (as asking does)
    used = list(dict.fromkeys(q["photo"] for q in questions))
    photos: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="trove-grounding-") as tmp:
        import cv2

        for key in used:
            entry = spec["photos"][key]
            if "compose" in entry:
                path = Path(tmp) / "composed" / f"IMG_{len(photos) + 1:04d}.jpg"  # a name that gives nothing away
                path.parent.mkdir(exist_ok=True)
                cv2.imwrite(str(path), RECIPES[entry["compose"]](), [cv2.IMWRITE_JPEG_QUALITY, 92])
            else:
                path = ROOT / entry["path"]
            t1 = time.perf_counter()
            analysis = analyse(load_photo(path).image, vision, pipeline_settings.region_overlap)
            analyse_s = time.perf_counter() - t1
            item = photo_item(path, analysis, sidecars.caption(path))
            evidence, kept, ground_s = grounded_setting(ctx, item, pipeline_settings)
            photos[key] = {"path": path, "item": item, "evidence": {"A": evidence}, "kept": kept,
                           "visible": set(entry["visible"]), "analyse_s": analyse_s, "ground_s": ground_s,
                           "regions": [r.as_dict() for r in analysis.regions]}
            photos[key]["evidence"]["C"] = inventory_setting(item, inventory, pack.name, blind=False)
            photos[key]["evidence"]["C-blind"] = inventory_setting(item, inventory, pack.name, blind=True)

        # ---- answers
        rows: list[dict] = []
        for setting in settings:
            for q in tqdm(questions, file=sys.stderr, desc=f"setting {setting}"):
                photo = photos[q["photo"]]
                evidence = photo["evidence"][setting]
                cited_elements = {e.n: e.locator["element"] for e in evidence
                                  if e.locator.get("element") in pack_ids}
                t1 = time.perf_counter()
                draft = generate(llm, q["text"], evidence, pipeline_settings.answer_max_tokens)
                seconds = time.perf_counter() - t1
                per_sentence = claims(draft.text, names, cited_elements)
                named = {k for s in per_sentence for k in s["elements"]}
                visible = photo["visible"]
                visible_entities = {entity_of(k) for k in visible}
                bad = [s for s in per_sentence if set(s["elements"]) - visible or set(s["entities"]) - visible_entities]
                rows.append({"setting": setting, "photo": q["photo"], "question": q["text"],
                             "gold": sorted(q.get("gold", visible)), "named": sorted(named),
                             "entities": sorted({e for s in per_sentence for e in s["entities"]}),
                             "answer": draft.text, "answered": draft.answered, "cited": draft.cited,
                             "sentences": per_sentence, "unsupported_claims": len(bad),
                             "check_unsupported": draft.unsupported, "seconds": seconds,
                             "evidence": [f"{e.header()} {e.text}" for e in evidence]})

    text = report(args, settings, questions, photos, rows, spec, load_s, llm.name)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "grounding.md").write_text(text)
    dump = {"photos": {k: {"path": str(p["path"]), "visible": sorted(p["visible"]), "kept": p["kept"],
                           "regions": p["regions"], "analyse_s": p["analyse_s"], "ground_s": p["ground_s"],
                           "evidence_A": [f"{e.header()} {e.text}" for e in p["evidence"]["A"]]}
                       for k, p in photos.items()}, "answers": rows}
    (args.out / "grounding.json").write_text(json.dumps(dump, indent=1, ensure_ascii=False))
    print(text)
    return 0


def report(args, settings: list[str], questions: list[dict], photos: dict, rows: list[dict],  # noqa: ANN001
           spec: dict, load_s: float, model: str) -> str:
    def short(key: str) -> str:
        return key.split("/", 1)[1] if "/" in key else key

    # grounding alone
    g = Tally()
    g_lines = ["| photo | visible (gold) | kept pack elements | missed | wrongly kept | generic kept | "
               "analyse ms | ground ms |", "|---" * 8 + "|"]
    for key, p in photos.items():
        kept_pack = {k for k in p["kept"] if not k.startswith("generic/")}
        generic = [k.split("/", 2)[2] for k in p["kept"] if k.startswith("generic/")]
        g.add(kept_pack, p["visible"])
        g_lines.append(f"| {key} | {', '.join(short(k) for k in sorted(p['visible'])) or '–'} | "
                       f"{', '.join(short(k) for k in sorted(kept_pack)) or '–'} | "
                       f"{', '.join(short(k) for k in sorted(p['visible'] - kept_pack)) or '–'} | "
                       f"{', '.join(short(k) for k in sorted(kept_pack - p['visible'])) or '–'} | "
                       f"{', '.join(generic) or '–'} | {1000 * p['analyse_s']:.0f} | {1000 * p['ground_s']:.0f} |")
    g_table = ["| | element precision | element recall | entity precision | entity recall |", "|---" * 5 + "|",
               "| grounding (kept pack elements vs visible) | " + " | ".join(g.cells()) + " |"]

    # answers
    a_lines = ["| setting | element precision | element recall | entity precision | entity recall | "
               "unsupported-claim rate | answers with one | check: unsupported sentences | answered | "
               "median s | mean s |", "|---" * 11 + "|"]
    for setting in settings:
        mine = [r for r in rows if r["setting"] == setting]
        tally = Tally()
        for r in mine:
            tally.add(set(r["named"]), set(r["gold"]))
        sentences = sum(len(r["sentences"]) for r in mine)
        claims_bad = sum(r["unsupported_claims"] for r in mine)
        check = sum(len(r["check_unsupported"]) for r in mine)
        times = [r["seconds"] for r in mine]
        a_lines.append(f"| {setting} | " + " | ".join(tally.cells()) + f" | {Tally.ratio(claims_bad, sentences)} | "
                       f"{Tally.ratio(sum(1 for r in mine if r['unsupported_claims']), len(mine))} | "
                       f"{Tally.ratio(check, sentences)} | "
                       f"{Tally.ratio(sum(1 for r in mine if r['answered']), len(mine))} | "
                       f"{statistics.median(times):.1f} | {statistics.mean(times):.1f} |")

    # per question
    q_lines = ["| # | photo | question | gold | " + " | ".join(f"{s}: named (✗ = not visible)" for s in settings)
               + " |", "|---" * (4 + len(settings)) + "|"]
    by = {(r["setting"], r["photo"], r["question"]): r for r in rows}
    for i, q in enumerate(questions, 1):
        visible = photos[q["photo"]]["visible"]
        cells = []
        for setting in settings:
            r = by[(setting, q["photo"], q["text"])]
            said = [short(k) + ("" if k in visible else " ✗") for k in r["named"]]
            flag = f" ({r['unsupported_claims']} bad)" if r["unsupported_claims"] else ""
            cells.append((", ".join(said) or ("–" if r["answered"] else "not found")) + flag)
        gold = q.get("gold", sorted(visible))
        q_lines.append(f"| {i} | {q['photo']} | {q['text']} | {', '.join(short(k) for k in gold) or '–'} | "
                       + " | ".join(cells) + " |")
    answers = []
    for r in rows:
        answers.append(f"- **{r['setting']}** {r['photo']}: *{r['question']}* → {r['answer']}"
                       + (f"  \n  check flagged: {r['check_unsupported']}" if r["check_unsupported"] else ""))

    composed = ", ".join(k for k in photos if "compose" in spec["photos"][k])
    return (f"# Element grounding (GranuRAG A vs C), {datetime.now().isoformat(timespec='seconds')}\n\n"
            f"command: `python -m bench.grounding --settings {args.settings} --llm {args.llm} --limit {args.limit}`  \n"
            f"LLM: {model} (loaded in {load_s:.1f} s), {args.threads} threads; questions: {len(questions)} on "
            f"{len(photos)} photos (composed at run time: {composed or 'none'})\n\n"
            "## Grounding alone (no LLM)\n\n" + "\n".join(g_table) + "\n\n" + "\n".join(g_lines)
            + "\n\n## Answers\n\nPrecision/recall are micro-averaged over answers; an element or entity is *named* "
            "when an alias is in an affirmative clause or a cited evidence is that element. Unsupported-claim "
            "rate: answer sentences naming an element/entity not visible in the photo. *check*: sentences "
            "`finalise` lists as unsupported by their citations.\n\n" + "\n".join(a_lines)
            + "\n\n### Per question\n\n" + "\n".join(q_lines) + "\n\n### Answers\n\n" + "\n".join(answers) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
