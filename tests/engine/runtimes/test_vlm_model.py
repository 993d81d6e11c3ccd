"""The vision-language model path run for real, on a real-format model made at test time: the smoke
LLM paired with a tiny random LLaVA-style projector (tests/vlm_model.py). What it says is meaningless;
what is checked is the path: the projector loads in llama.cpp's mtmd, a photo reaches it as a JPEG
and is encoded as the projector's image tokens, in bounded time and memory; `trove models import
--role vlm` installs the pair; and `trove ask` about a photo confirms its regions and shows it the
annotated photo through the model, with what came back in the answer."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import psutil
import pytest
from click.testing import CliRunner

from engine.errors import ModelError
from engine.generation.answer import NOT_FOUND, content_words, strip_citations
from engine.grounding.annotate import _COLOURS
from engine.ingest.photos.image_io import load_photo
from engine.models import ModelManager
from engine.runtimes.vlm import VisionLanguageModel, pair
from engine.settings import load_settings
from tests.conftest import EXAMPLES, MODELS_DIR, ROOT
from tests.vlm_model import GENERIC_NAME, IMAGE_SIZE, LLAVA_NAME, PATCH_SIZE, PROJECTOR_NAME, tiny_projector, vlm_folder

IMAGE_TOKENS = (IMAGE_SIZE // PATCH_SIZE) ** 2  # what one picture costs in the prompt, whatever its size
TRAM = EXAMPLES / "photos" / "2025-05-lisbon" / "tram-stop.jpg"
QUESTION = "Which tram line was on the stop sign in my Lisbon photos?"
CHECK = "Does this picture show"  # the start of VisionLanguageModel.shows' prompt
MB = 2**20


def _smoke_gguf() -> Path:
    from engine.runtimes.llm import resolve_llm_choice

    paths = ModelManager(MODELS_DIR).paths(resolve_llm_choice("smoke"))
    return next(path for name, path in paths.items() if name.endswith(".gguf"))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The VLM folder a user would import: the smoke LLM (as a generic VLM's language model) and the projector."""
    pytest.importorskip("gguf", reason="the tiny projector is written with the gguf package (dev: gguf==0.19.0)")
    return vlm_folder(tmp_path_factory.mktemp("vlm") / "tiny-vlm", _smoke_gguf())


def _jpeg(uri: str) -> np.ndarray:
    head, _, payload = uri.partition(",")
    assert head == "data:image/jpeg;base64"
    image = cv2.imdecode(np.frombuffer(base64.b64decode(payload), np.uint8), cv2.IMREAD_COLOR)
    assert image is not None, "the data URI holds no decodable JPEG"
    return image


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    """The same picture, but for JPEG's losses."""
    return a.shape == b.shape and float(np.mean(cv2.absdiff(a, b))) < 4.0


@pytest.mark.parametrize(("model_name", "handler"), [(GENERIC_NAME, "OneStringHandler"),
                                                     (LLAVA_NAME, "Llava15ChatHandler")])
def test_the_tiny_vlm_encodes_a_photo_and_answers_in_bounded_time_and_memory(
        folder: Path, tmp_path: Path, model_name: str, handler: str, capfd: pytest.CaptureFixture,
        record_property) -> None:  # noqa: ANN001
    model = tmp_path / model_name  # the handler is chosen by the model file's name
    model.symlink_to(folder / GENERIC_NAME)
    process = psutil.Process()
    rss_before = process.memory_info().rss
    start = time.perf_counter()
    vlm = VisionLanguageModel(model, folder / PROJECTOR_NAME, n_ctx=1024, threads=1)
    load_s = time.perf_counter() - start
    assert type(vlm.llama.chat_handler).__name__ == handler

    received: list[bytes] = []  # the image bytes the handler hands to libmtmd
    read = vlm.llama.chat_handler.load_image
    vlm.llama.chat_handler.load_image = lambda url: received.append(read(url)) or received[-1]
    photo = load_photo(TRAM).image
    reply = vlm.look(photo, "What is in this photo?", max_tokens=8)
    rss_loaded = process.memory_info().rss
    assert isinstance(reply, str)
    assert len(received) == 1 and _close(cv2.imdecode(np.frombuffer(received[0], np.uint8), cv2.IMREAD_COLOR), photo)
    (call,) = vlm.calls.take()
    assert call.stage == "" and call.generated_tokens <= 8 and 0 < call.total_s < 10

    # the picture is in the prompt as the projector's 16 tokens: a small one costs as many as the photo,
    # and the prompt without it has 16 fewer (give or take the token the text splits into at the marker)
    vlm.look(photo[:48, :64], "What is in this photo?", max_tokens=1)
    text_only = vlm.llama.create_chat_completion(
        messages=[{"role": "user", "content": [{"type": "text", "text": "What is in this photo?"}]}], max_tokens=1)
    small, = vlm.calls.take()
    assert small.prompt_tokens == call.prompt_tokens
    assert abs(call.prompt_tokens - text_only["usage"]["prompt_tokens"] - IMAGE_TOKENS) <= 1

    for _ in range(5):  # no memory is kept per call (bitmaps, image chunks)
        vlm.look(photo, "Describe it.", max_tokens=4)
    rss_after = process.memory_info().rss
    per_call = [c.total_s for c in vlm.calls.take()]
    record_property("vlm", {"load_s": round(load_s, 3), "look_s": [round(s, 3) for s in [call.total_s, *per_call]],
                            "rss_mb": round((rss_loaded - rss_before) / MB), "rss_growth_5_calls_mb":
                            round((rss_after - rss_loaded) / MB, 1)})
    assert load_s < 20 and max(per_call) < 10
    assert (rss_loaded - rss_before) / MB < 400  # ~100 MB of model, its 1024-token KV cache, the projector
    assert (rss_after - rss_loaded) / MB < 32
    quiet = capfd.readouterr().err  # libmtmd says nothing of each prompt and image when not verbose
    assert "clip_encode" not in quiet and "add_text" not in quiet and "image decoded" not in quiet


def test_a_projector_that_does_not_fit_the_model_is_refused_when_loaded(folder: Path, tmp_path: Path) -> None:
    """Its embeddings are 512 wide, the model's 576: refused at load, naming the files, not mid-answer."""
    wrong = tiny_projector(tmp_path / "mmproj-wrong-width.gguf", text_embd=512)
    with pytest.raises(ModelError, match="mmproj-wrong-width.gguf"):
        VisionLanguageModel(folder / GENERIC_NAME, wrong, n_ctx=256, threads=1)


def test_a_program_holding_the_vlm_ends_without_a_traceback(folder: Path) -> None:
    """Held in a reference cycle, as the pipeline holds it, it is collected only as the interpreter
    ends, when llama-cpp-python's finaliser would free the projector through a closed stream."""
    code = ("import sys; from pathlib import Path; from engine.runtimes.vlm import VisionLanguageModel; "
            "vlm = VisionLanguageModel(Path(sys.argv[1]), Path(sys.argv[2]), n_ctx=256, threads=1); "
            "held = [vlm]; held.append(held)")
    proc = subprocess.run([sys.executable, "-c", code, str(folder / GENERIC_NAME), str(folder / PROJECTOR_NAME)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, \
        proc.stderr


def _import(folder: Path, home: Path) -> str:
    from engine.cli import cli

    result = CliRunner().invoke(cli, ["models", "import", str(folder), "--role", "vlm", "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result.output


def _models_list(home: Path) -> dict:
    from engine.cli import cli

    result = CliRunner().invoke(cli, ["models", "list", "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_trove_models_import_role_vlm_installs_the_pair_in_the_home(folder: Path, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    models, home = tmp_path / "models", tmp_path / "home"
    monkeypatch.setenv("TROVE_MODELS_DIR", str(models))
    assert "vlm" in _models_list(home)["empty_roles"]
    assert "imported:" in _import(folder, home)
    listed = _models_list(home)
    assert "vlm" not in listed["empty_roles"] and listed["models_dir"] == str(models)
    assert [r["state"] for r in listed["models"] if r["role"] == "vlm"] == ["installed"]
    from engine.cli.base import settings_for

    manager = ModelManager(settings_for(home).models_folder)
    assert manager.is_installed("vlm")
    model, projector = pair(manager.paths("vlm"))
    assert (model.name, projector.name) == (GENERIC_NAME, PROJECTOR_NAME)
    assert model.parent.parent == models and model.stat().st_size == (folder / GENERIC_NAME).stat().st_size


@dataclass
class Look:
    image: np.ndarray  # the BGR picture Trove gave the VLM
    prompt: str
    reply: str
    uri: str = ""  # the picture as it went to llama-cpp-python


def _listen(vlm: VisionLanguageModel, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Look], dict[str, str]]:
    """Every look the pipeline makes, recorded at Trove's side (the picture) and at llama-cpp-python's
    (the data URI); the tiny model's yes/no is steered by a logit bias on its first token ("Yes" or
    "No", as `verdict["word"]` says) so that both of grounding's branches are taken on any machine."""
    looks: list[Look] = []
    verdict = {"word": "Yes"}
    look, complete = vlm.look, vlm.llama.create_chat_completion

    def recorded_look(image: np.ndarray, prompt: str, max_tokens: int = 256, system: str = "") -> str:
        looks.append(Look(image, prompt, ""))
        looks[-1].reply = look(image, prompt, max_tokens, system)
        return looks[-1].reply

    def steered(messages: list[dict], **kwargs: object) -> dict:
        parts = messages[-1]["content"]
        looks[-1].uri = next(p["image_url"]["url"] for p in parts if p["type"] == "image_url")
        if any(p["type"] == "text" and p["text"].startswith(CHECK) for p in parts):
            token = vlm.llama.tokenize(verdict["word"].encode(), add_bos=False, special=False)[0]
            kwargs["logit_bias"] = {token: 100.0}
        return complete(messages=messages, **kwargs)

    monkeypatch.setattr(vlm, "look", recorded_look)
    monkeypatch.setattr(vlm.llama, "create_chat_completion", steered)
    return looks, verdict


@pytest.mark.slow
def test_asking_about_a_photo_confirms_its_regions_and_shows_it_annotated_through_the_vlm(
        folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder, smoke_llm) -> None:  # noqa: ANN001
    from engine.pipeline import Trove

    models, home = tmp_path / "models", tmp_path / "home"
    models.mkdir()
    for installed in MODELS_DIR.iterdir():  # the installed models, and the imported VLM beside them
        if installed.is_dir():
            (models / installed.name).symlink_to(installed)
    monkeypatch.setenv("TROVE_MODELS_DIR", str(models))
    _import(folder, home)
    trove = Trove(load_settings(home, models_dir=models, llm="smoke", threads=1))
    trove.models.embedder, trove.models.llm = embedder, smoke_llm  # the session's; the VLM is the home's
    try:
        root = tmp_path / "media"
        for part in ("photos", "knowledge-pack"):
            shutil.copytree(EXAMPLES / part, root / part)
        trove.index([root])
        vlm = trove.models.vlm
        assert isinstance(vlm, VisionLanguageModel) and vlm.name == ModelManager(models).spec("vlm").name
        looks, verdict = _listen(vlm, monkeypatch)
        raw = load_photo(root / TRAM.relative_to(EXAMPLES)).image
        for word in ("Yes", "No"):
            verdict["word"] = word
            looks.clear()
            vlm.calls.take()
            result = trove.ask(QUESTION)
            checks = [look for look in looks if look.prompt.startswith(CHECK)]
            answers = [look for look in looks if not look.prompt.startswith(CHECK)]
            assert checks and len(answers) == 1, [look.prompt[:60] for look in looks]

            # the region yes/no check: each region's crop went to the model, and its word was taken
            for check in checks:
                assert check.reply.lower().startswith(word.lower())
                assert check.image.shape[0] * check.image.shape[1] < raw.shape[0] * raw.shape[1]
                assert _close(_jpeg(check.uri), check.image)

            # the answer: the model saw the whole photo, with the confirmed regions boxed and numbered
            (answer,) = answers
            assert answer.image.shape == raw.shape and _close(_jpeg(answer.uri), answer.image)
            box_one = np.all(answer.image == _COLOURS[0], axis=2) & ~np.all(raw == _COLOURS[0], axis=2)
            if word == "Yes":
                assert "seen in photo tram-stop.jpg" in answer.prompt  # the regions, as evidence [n]
                assert box_one.sum() > 200  # box [1] is drawn in its colour
            else:
                assert "seen in photo" not in answer.prompt  # every region was rejected: none is evidence
                assert np.array_equal(answer.image, raw)

            # what came back is in the answer object: the model that wrote it, its text, the stages' time
            assert result.model == vlm.name
            if result.answered:
                assert content_words(strip_citations(result.answer)) <= content_words(answer.reply)
            else:
                assert result.answer == NOT_FOUND
            calls = vlm.calls.take()
            assert [c.stage for c in calls] == ["ground"] * len(checks) + ["generate"]
            assert result.timings_ms["ground"] >= 1000 * sum(c.total_s for c in calls[:-1])
            assert result.timings_ms["generate"] >= 1000 * calls[-1].total_s
            assert all(c.prompt_tokens > IMAGE_TOKENS for c in calls)

            # and the regions' verdicts, in the citations of the photo and of its regions
            for citation in result.citations:
                if citation.kind == "region":
                    assert word == "Yes" and citation.locator["reason"].endswith("confirmed by the VLM")
                elif citation.kind == "image" and "grounding" in citation.locator:
                    for decision in citation.locator["grounding"]:  # kept, or not and why
                        if decision["status"] in ("matched", "generic"):
                            assert word == "Yes" and decision["reason"].endswith("confirmed by the VLM")
                        elif decision["status"] == "vlm-rejected":
                            assert word == "No" and decision["reason"].startswith("the VLM did not confirm")

        def overflowing(**_: object) -> None:  # what llama-cpp-python raises when the prompt does not fit
            raise ValueError("could not broadcast input array from shape (12,) into shape (0,)")

        monkeypatch.setattr(vlm.llama, "create_chat_completion", overflowing)
        result = trove.ask(QUESTION)  # the VLM cannot look: the regions stand unconfirmed, the text model answers
        assert result.model == smoke_llm.name
        reasons = [c.locator["reason"] for c in result.citations if c.kind == "region"]
        reasons += [d["reason"] for c in result.citations if c.kind == "image" for d in c.locator.get("grounding", [])
                    if d["status"] in ("matched", "generic")]
        assert reasons and all(reason.endswith("the VLM could not look at it") for reason in reasons)
    finally:
        trove.close()


def test_a_look_that_overflows_the_context_leaves_the_region_unconfirmed_not_the_ask_failed(folder: Path):
    from engine.grounding.inventory import Element
    from engine.grounding.matching import GroundingSettings, _decide
    from engine.runtimes.vision.regions import Region

    vlm = VisionLanguageModel(folder / GENERIC_NAME, folder / PROJECTOR_NAME, n_ctx=40, threads=1)  # < the prompt
    photo = load_photo(TRAM).image
    with pytest.raises(ValueError):  # llama-cpp-python: a buffer the prompt does not fit
        vlm.look(photo, "What is on the sign?", max_tokens=4)
    tram = Element("generic/object/tram", "tram", "a yellow tram")
    assert vlm.shows(photo, tram) is None  # could not look: neither yes nor no
    region = Region("object", "tram", (10.0, 10.0, 200.0, 150.0), 0.9)
    decision = _decide(photo, region, [tram], np.array([0.9]), np.array([0.9]), GroundingSettings(), vlm.shows)
    assert decision.element is not None and decision.reason.endswith("the VLM could not look at it")
