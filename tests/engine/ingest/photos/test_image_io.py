"""Reading photos as a viewer shows them, and refusing bad ones with a reason."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from engine.errors import ParseError, SkipFile
from engine.ingest.photos.exif import read_exif
from engine.ingest.photos.image_io import load_photo
from tests.conftest import shared_path


def _jpeg_with_exif(path: Path, size: tuple[int, int] = (120, 80), orientation: int | None = None,
                    taken: str = "2024:03:14 15:02:07", gps: tuple[float, float] | None = (38.7107, -9.1416)) -> Path:
    image = Image.new("RGB", size, (200, 30, 30))
    image.paste((30, 30, 200), (0, 0, size[0] // 4, size[1] // 4))  # a blue corner: shows where "up" is
    exif = Image.Exif()
    exif[0x010F], exif[0x0110] = "Canon", "EOS R6"
    if orientation:
        exif[0x0112] = orientation
    exif.get_ifd(0x8769)[0x9003] = taken
    if gps:
        def dms(value: float) -> tuple:
            value = abs(value)
            d = int(value)
            m = int((value - d) * 60)
            return (d, m, round(((value - d) * 60 - m) * 60, 4))

        exif.get_ifd(0x8825).update({1: "N" if gps[0] >= 0 else "S", 2: dms(gps[0]),
                                     3: "E" if gps[1] >= 0 else "W", 4: dms(gps[1])})
    image.save(path, "JPEG", exif=exif, quality=90)
    return path


def test_exif_gives_when_where_and_which_camera(tmp_path: Path):
    photo = load_photo(_jpeg_with_exif(tmp_path / "a.jpg"))
    assert photo.exif["taken_at"] == "2024-03-14T15:02:07"
    assert (photo.exif["camera_make"], photo.exif["camera_model"]) == ("Canon", "EOS R6")
    assert photo.exif["latitude"] == pytest.approx(38.7107, abs=1e-3)
    assert photo.exif["longitude"] == pytest.approx(-9.1416, abs=1e-3)
    assert photo.image.dtype == np.uint8 and photo.image.shape == (80, 120, 3)


def test_orientation_is_applied_so_boxes_match_what_a_viewer_shows(tmp_path: Path):
    photo = load_photo(_jpeg_with_exif(tmp_path / "rotated.jpg", orientation=6))
    assert (photo.width, photo.height) == (80, 120)  # 90° clockwise: the stored 120x80 stands upright
    assert photo.exif["orientation"] == 6
    top_right = photo.image[:15, -15:].mean(axis=(0, 1))  # the blue corner moved to the top right (BGR)
    assert top_right[0] > 150 and top_right[2] < 100


def test_clockless_cameras_and_junk_gps_are_dropped(tmp_path: Path):
    photo = load_photo(_jpeg_with_exif(tmp_path / "junk.jpg", taken="0000:00:00 00:00:00", gps=(0.0, 0.0)))
    assert "taken_at" not in photo.exif and "latitude" not in photo.exif


def test_first_frame_of_an_animation(tmp_path: Path):
    frames = [Image.new("RGB", (32, 32), colour) for colour in ((255, 0, 0), (0, 255, 0))]
    frames[0].save(tmp_path / "anim.gif", save_all=True, append_images=frames[1:], duration=100)
    photo = load_photo(tmp_path / "anim.gif")
    assert photo.frames == 2
    assert photo.image[16, 16, 2] > 200  # red (BGR)


def test_real_photos_of_every_format_load(tmp_path: Path):
    source = shared_path("eval", "images", "skimage", "chelsea.png")
    Image.open(source).convert("RGB").save(tmp_path / "chelsea.webp")
    Image.open(source).convert("RGB").save(tmp_path / "chelsea.tiff")
    Image.open(source).convert("RGB").save(tmp_path / "chelsea.bmp")
    for path in (source, tmp_path / "chelsea.webp", tmp_path / "chelsea.tiff", tmp_path / "chelsea.bmp"):
        photo = load_photo(path)
        assert (photo.width, photo.height) == (451, 300), path


def test_truncated_jpeg_is_a_parse_error_naming_the_reason(tmp_path: Path):
    whole = _jpeg_with_exif(tmp_path / "whole.jpg", size=(640, 480)).read_bytes()
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ParseError, match="truncated"):
        load_photo(broken)


def test_a_text_file_named_jpg_is_not_a_photo(tmp_path: Path):
    fake = tmp_path / "notes.jpg"
    fake.write_text("shopping list: eggs, flour\n" * 20)
    with pytest.raises(ParseError, match="not a readable image"):
        load_photo(fake)


def test_icons_are_skipped_and_missing_heic_support_says_how_to_install(tmp_path: Path):
    Image.new("RGB", (4, 4)).save(tmp_path / "pixel.png")
    with pytest.raises(SkipFile, match="too small"):
        load_photo(tmp_path / "pixel.png")
    heic = tmp_path / "phone.heic"
    heic.write_bytes(b"\x00\x00\x00\x18ftypheic" + b"\x00" * 64)
    try:
        import pillow_heif  # noqa: F401
    except ImportError:
        with pytest.raises(SkipFile, match="pip install pillow-heif"):
            load_photo(heic)
    else:
        with pytest.raises(ParseError):
            load_photo(heic)


def test_damaged_exif_block_does_not_lose_the_photo():
    image = Image.open(io.BytesIO(_png_bytes()))
    assert read_exif(image) == {}


def _png_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (20, 20)).save(buffer, "PNG")
    return buffer.getvalue()
