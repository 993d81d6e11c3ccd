"""Builds the example photos, the knowledge pack's reference photos and a short video with subtitles.

The pictures start from public-domain / CC0 sample photos shipped inside the scikit-image wheel on PyPI
(skimage/data/: chelsea.png, coffee.png, astronaut.png, rocket.jpg, brick.png, gravel.png, grass.png); everything else
(the tram stop sign, the castle view, the window, the poster wall) is drawn here. Deterministic for a given
scikit-image wheel, Pillow and OpenCV; run from the repository root:

    .venv/bin/python examples/build_example_media.py

The wheel is fetched once with `pip download --no-deps` and cached under ~/.cache/trove/example-assets. After building,
the script checks what it made: OCR (rapidocr_onnxruntime) must read the tram sign and the poster, the video must read
back with OpenCV, and scenedetect's AdaptiveDetector must find the cuts where they were put (checks are skipped, with a
note, when those packages are not installed).
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OPENCV_LOG_LEVEL", "OFF")
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image, ImageDraw, ImageFilter, ImageFont, ImageOps  # noqa: E402

HERE = Path(__file__).resolve().parent
SKIMAGE_VERSION = "0.25.2"
CACHE = Path.home() / ".cache" / "trove" / "example-assets"
# sha256 of the sample files used (as in skimage/data/_registry.py), so a different wheel cannot change the pictures
SAMPLES = {
    "chelsea.png": "596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb",
    "coffee.png": "cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7",
    "astronaut.png": "88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5",
    "rocket.jpg": "c2dd0de7c538df8d111e479619b129464d0269d0ae5fd18ca91d33a7fdfea95c",
    "brick.png": "7966caf324f6ba843118d98f7a07746d22f6a343430add0233eca5f6eaaa8fcf",
    "gravel.png": "c48615b451bf1e606fbd72c0aa9f8cc0f068ab7111ef7d93bb9b0f2586440c12",
    "grass.png": "b6b6022426b38936c43a4ac09635cd78af074e90f42ffa8227ac8b7452d39f89",
}
PHOTO_LONG_SIDE = 800
JPEG_QUALITY = 85


# ----------------------------------------------------------------------------------------------- sample photos


def skimage_wheel() -> Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    found = sorted(CACHE.glob(f"scikit_image-{SKIMAGE_VERSION}-*.whl"))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                        f"scikit-image=={SKIMAGE_VERSION}", "-d", str(CACHE)], check=True)
        found = sorted(CACHE.glob(f"scikit_image-{SKIMAGE_VERSION}-*.whl"))
    if not found:
        raise SystemExit(f"no scikit-image {SKIMAGE_VERSION} wheel in {CACHE}")
    return found[0]


def load_samples() -> dict[str, Image.Image]:
    out = {}
    with zipfile.ZipFile(skimage_wheel()) as whl:
        for name, digest in SAMPLES.items():
            data = whl.read(f"skimage/data/{name}")
            got = hashlib.sha256(data).hexdigest()
            if digest and got != digest:
                raise SystemExit(f"skimage/data/{name}: sha256 {got}, expected {digest}")
            out[name] = Image.open(io.BytesIO(data)).copy()
    return out


# ----------------------------------------------------------------------------------------------- drawing helpers


def font(size: int) -> ImageFont.FreeTypeFont:
    f = ImageFont.load_default(size)  # Aileron (CC0), bundled with Pillow: the same glyphs everywhere
    if not isinstance(f, ImageFont.FreeTypeFont):
        raise SystemExit("Pillow was built without FreeType: cannot draw the sign and poster text")
    return f


def f32(img: Image.Image) -> np.ndarray:
    return np.asarray(img.convert("RGB"), dtype=np.float32)


def u8(arr: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(arr), 0, 255).astype(np.uint8)


def tint(gray: Image.Image, size: tuple[int, int], dark, light, contrast: float = 1.0) -> np.ndarray:
    """A grayscale texture resized to size (w, h), mapped between two colours."""
    g = np.asarray(gray.convert("L").resize(size, Image.Resampling.BICUBIC), dtype=np.float32) / 255.0
    g = np.clip((g - g.mean()) * contrast + 0.5, 0, 1)[..., None]
    return np.array(dark, np.float32) * (1 - g) + np.array(light, np.float32) * g


def smooth_noise(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    small = rng.random((max(2, h * cells // max(h, w)), max(2, w * cells // max(h, w)))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def vgradient(h: int, w: int, top, bottom) -> np.ndarray:
    t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    return np.broadcast_to(np.array(top, np.float32) * (1 - t) + np.array(bottom, np.float32) * t, (h, w, 3)).copy()


def paste(base: np.ndarray, over: np.ndarray, alpha: np.ndarray, x: int, y: int) -> None:
    """Alpha-composite over (h, w, 3) with alpha (h, w) in 0..1 onto base at (x, y), clipped to base."""
    h, w = alpha.shape
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, base.shape[1]), min(y + h, base.shape[0])
    if x0 >= x1 or y0 >= y1:
        return
    a = alpha[y0 - y:y1 - y, x0 - x:x1 - x, None]
    base[y0:y1, x0:x1] = base[y0:y1, x0:x1] * (1 - a) + over[y0 - y:y1 - y, x0 - x:x1 - x] * a


def shifted(a: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """a moved right by dx and down by dy, zeros coming in (a cast shadow)."""
    M = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(a, M, (a.shape[1], a.shape[0]), borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def mask_from(shapes: list[tuple[str, list]], size: tuple[int, int], blur: float = 0.0) -> np.ndarray:
    """A 0..1 mask of filled shapes: ("ellipse" | "rectangle" | "polygon", coordinates)."""
    m = Image.new("L", size, 0)
    d = ImageDraw.Draw(m)
    for kind, xy in shapes:
        getattr(d, kind)(xy, fill=255)
    if blur:
        m = m.filter(ImageFilter.GaussianBlur(blur))
    return np.asarray(m, dtype=np.float32) / 255.0


def photo_finish(arr: np.ndarray, rng: np.random.Generator, vignette: float = 0.25, grain: float = 3.0,
                 soften: float = 0.6) -> np.ndarray:
    """What a phone camera adds: a little lens softness, vignetting and sensor grain."""
    h, w = arr.shape[:2]
    if soften:
        arr = cv2.GaussianBlur(arr, (0, 0), soften)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2
    arr = arr * (1 - vignette * np.clip(r2 / 2, 0, 1))[..., None]
    arr = arr + rng.normal(0, grain, arr.shape).astype(np.float32)
    return u8(arr)


def fit_long_side(img: Image.Image, long_side: int = PHOTO_LONG_SIDE) -> Image.Image:
    scale = long_side / max(img.size)
    if scale >= 1:
        return img
    return img.resize((round(img.width * scale), round(img.height * scale)), Image.Resampling.LANCZOS)


# ----------------------------------------------------------------------------------------------- EXIF


@dataclass(frozen=True)
class Shot:
    taken: str  # "YYYY:MM:DD HH:MM:SS", local time
    offset: str  # "+01:00"
    lat: float
    lon: float
    make: str = "Fairphone"
    model: str = "FP5"


def _dms(value: float) -> tuple[float, float, float]:
    value = abs(value)
    deg = int(value)
    minutes = int((value - deg) * 60)
    seconds = round(((value - deg) * 60 - minutes) * 60, 2)
    return (float(deg), float(minutes), seconds)


def exif_for(shot: Shot, orientation: int = 1) -> Image.Exif:
    exif = Image.Exif()
    exif[0x010F] = shot.make  # Make
    exif[0x0110] = shot.model  # Model
    exif[0x0112] = orientation  # Orientation
    exif[0x0131] = "Trove example builder"  # Software
    exif[0x0132] = shot.taken  # DateTime
    sub = exif.get_ifd(0x8769)  # Exif IFD
    sub[0x9003] = shot.taken  # DateTimeOriginal
    sub[0x9004] = shot.taken  # DateTimeDigitized
    sub[0x9011] = shot.offset  # OffsetTimeOriginal
    gps = exif.get_ifd(0x8825)  # GPS IFD
    gps[0x0000] = b"\x02\x02\x00\x00"  # GPSVersionID 2.2
    gps[0x0001] = "N" if shot.lat >= 0 else "S"
    gps[0x0002] = _dms(shot.lat)
    gps[0x0003] = "E" if shot.lon >= 0 else "W"
    gps[0x0004] = _dms(shot.lon)
    return exif


def save_photo(img: Image.Image | np.ndarray, path: Path, shot: Shot, orientation: int = 1) -> Image.Image:
    """Saves as JPEG with EXIF. With orientation 6 the pixels are stored turned a quarter to the left, as a
    phone held upright stores them; a viewer that applies the tag shows the picture upright."""
    if isinstance(img, np.ndarray):
        img = Image.fromarray(u8(img))
    img = fit_long_side(img.convert("RGB"))
    stored = img.transpose(Image.Transpose.ROTATE_90) if orientation == 6 else img
    path.parent.mkdir(parents=True, exist_ok=True)
    stored.save(path, "JPEG", quality=JPEG_QUALITY, exif=exif_for(shot, orientation), optimize=True)
    return img


def save_ref(img: Image.Image | np.ndarray, path: Path) -> None:
    if isinstance(img, np.ndarray):
        img = Image.fromarray(u8(img))
    path.parent.mkdir(parents=True, exist_ok=True)
    img.convert("RGB").save(path, "JPEG", quality=JPEG_QUALITY, optimize=True)


# ----------------------------------------------------------------------------------------------- the scenes

LISBON = "+01:00"  # WEST in May
NL = "+02:00"  # CEST
CAFE = Shot("2025:05:09 08:42:17", LISBON, 38.71068, -9.14243)  # Café A Brasileira, Chiado
TRAM = Shot("2025:05:09 09:26:51", LISBON, 38.71657, -9.13603)  # Martim Moniz
CASTLE = Shot("2025:05:09 11:08:05", LISBON, 38.71392, -9.13346)  # Castelo de São Jorge
WINDOW = Shot("2025:05:14 08:03:40", NL, 52.09012, 5.12183)  # home, Utrecht
POSTER = Shot("2024:10:19 14:37:02", NL, 52.15853, 4.48955, model="FP4")  # science museum, Leiden


def tram_sign(scale: float = 1.0, weathered: float = 0.0, seed: int = 0) -> tuple[Image.Image, dict[str, tuple]]:
    """A yellow tram stop sign (RGBA) and the boxes of its text lines in sign pixels."""
    w, h = round(640 * scale), round(400 * scale)
    s = scale
    sign = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(sign)
    d.rounded_rectangle([0, 0, w - 1, h - 1], radius=round(26 * s), fill=(38, 38, 36, 255))
    d.rounded_rectangle([round(8 * s), round(8 * s), w - 1 - round(8 * s), h - 1 - round(8 * s)],
                        radius=round(20 * s), fill=(247, 196, 22, 255))
    boxes: dict[str, tuple] = {}
    # route number on a black plate
    px0, py0, px1, py1 = round(34 * s), round(34 * s), round(254 * s), round(224 * s)
    d.rounded_rectangle([px0, py0, px1, py1], radius=round(14 * s), fill=(24, 24, 24, 255))
    f = font(round(150 * s))
    bb = d.textbbox((0, 0), "28", font=f)
    tx = (px0 + px1 - (bb[2] - bb[0])) / 2 - bb[0]
    ty = (py0 + py1 - (bb[3] - bb[1])) / 2 - bb[1]
    d.text((tx, ty), "28", font=f, fill=(255, 214, 40, 255), stroke_width=round(3 * s), stroke_fill=(255, 214, 40, 255))
    boxes["28"] = d.textbbox((tx, ty), "28", font=f, stroke_width=round(3 * s))
    f = font(round(58 * s))
    pos = (round(282 * s), round(52 * s))
    d.text(pos, "PARAGEM", font=f, fill=(20, 20, 20, 255), stroke_width=max(1, round(1.5 * s)),
           stroke_fill=(20, 20, 20, 255))
    boxes["PARAGEM"] = d.textbbox(pos, "PARAGEM", font=f, stroke_width=max(1, round(1.5 * s)))
    f = font(round(48 * s))
    pos = (round(286 * s), round(136 * s))
    d.text(pos, "CARRIS", font=f, fill=(20, 20, 20, 255))
    boxes["CARRIS"] = d.textbbox(pos, "CARRIS", font=f)
    # route band; wide gaps between the words so OCR keeps them apart
    d.rectangle([round(8 * s), round(256 * s), w - 1 - round(8 * s), round(262 * s)], fill=(38, 38, 36, 255))
    f = font(round(44 * s))
    sw = max(1, round(1 * s))
    words, gap = ["MARTIM", "MONIZ", "-", "PRAZERES"], round(22 * s)
    widths = [d.textbbox((0, 0), t, font=f, stroke_width=sw)[2] for t in words]
    x, y = (w - sum(widths) - gap * (len(words) - 1)) / 2, round(298 * s)
    for word, ww in zip(words, widths, strict=True):
        d.text((x, y), word, font=f, fill=(20, 20, 20, 255), stroke_width=sw, stroke_fill=(20, 20, 20, 255))
        boxes[word] = d.textbbox((x, y), word, font=f, stroke_width=sw)
        x += ww + gap
    boxes["MARTIM MONIZ - PRAZERES"] = (boxes["MARTIM"][0], min(boxes[k][1] for k in words),
                                        boxes["PRAZERES"][2], max(boxes[k][3] for k in words))
    if weathered:
        rng = np.random.default_rng(seed)
        arr = np.asarray(sign, dtype=np.float32)
        dirt = smooth_noise(rng, h, w, 24) * weathered * 60 + rng.normal(0, 4, (h, w)).astype(np.float32)
        arr[..., :3] -= dirt[..., None]
        sign = Image.fromarray(u8(arr), "RGBA")
    return sign, boxes


def warp_rgba(img: Image.Image, dst: list[tuple[float, float]], out_size: tuple[int, int]):
    """Perspective-warps an RGBA picture so its corners land on dst (tl, tr, br, bl); returns (rgb, alpha, H)."""
    w, h = img.size
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    H = cv2.getPerspectiveTransform(src, np.float32(dst))
    arr = np.asarray(img, dtype=np.float32)
    out = cv2.warpPerspective(arr, H, out_size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out[..., :3], out[..., 3] / 255.0, H


def warped_box(H: np.ndarray, box: tuple) -> list[int]:
    x0, y0, x1, y1 = box
    pts = cv2.perspectiveTransform(np.float32([[[x0, y0]], [[x1, y0]], [[x1, y1]], [[x0, y1]]]), H).reshape(-1, 2)
    return [int(pts[:, 0].min()), int(pts[:, 1].min()), int(np.ceil(pts[:, 0].max())), int(np.ceil(pts[:, 1].max()))]


def street_background(samples, w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """An Alfama street: a pastel facade with windows, a strip of sky, Portuguese pavement."""
    img = vgradient(h, w, (150, 190, 228), (205, 222, 236))
    # facade
    wall_top, ground = round(h * 0.06), round(h * 0.72)
    facade = tint(samples["brick.png"], (w, ground - wall_top), (196, 150, 104), (236, 205, 160), contrast=0.5)
    facade += (smooth_noise(rng, ground - wall_top, w, 8)[..., None] - 0.5) * 30
    img[wall_top:ground] = facade
    for col in range(5):
        for row in range(2):
            x0 = round(w * (0.03 + col * 0.205))
            y0 = round(wall_top + h * (0.05 + row * 0.32))
            x1, y1 = x0 + round(w * 0.12), y0 + round(h * 0.22)
            img[y0 - 6:y1 + 6, x0 - 6:x1 + 6] = (232, 228, 216)  # stone frame
            glass = vgradient(y1 - y0, x1 - x0, (52, 66, 80), (90, 104, 112))
            glass[:, (x1 - x0) // 2 - 2:(x1 - x0) // 2 + 2] = (228, 226, 218)
            img[y0:y1, x0:x1] = glass
    # azulejo band
    band = tint(samples["grass.png"], (w, round(h * 0.05)), (40, 84, 150), (214, 226, 240), contrast=1.4)
    img[ground - round(h * 0.05):ground] = band
    # calçada pavement, receding
    pave = tint(samples["gravel.png"], (w * 2, (h - ground) * 2), (120, 118, 112), (236, 232, 222), contrast=1.2)
    src = np.float32([[0, 0], [w * 2, 0], [w * 2, (h - ground) * 2], [0, (h - ground) * 2]])
    dst = np.float32([[w * 0.2, 0], [w * 0.8, 0], [w * 1.6, h - ground], [-w * 0.6, h - ground]])
    img[ground:] = cv2.warpPerspective(pave, cv2.getPerspectiveTransform(src, dst), (w, h - ground),
                                       borderMode=cv2.BORDER_REFLECT)
    img[ground:ground + 4] *= 0.6  # kerb shadow
    return cv2.GaussianBlur(img, (0, 0), 2.2)  # shallow depth of field: the sign is in focus


def pole(img: np.ndarray, x: int, y0: int, y1: int, width: int) -> None:
    shade = np.cos(np.linspace(-1.3, 1.3, width, dtype=np.float32)) * 0.65 + 0.35
    col = np.array((150, 152, 150), np.float32)[None, :] * shade[:, None]
    img[y0:y1, x:x + width] = col[None, :, :]


def build_tram_stop(samples) -> tuple[Image.Image, dict[str, list[int]]]:
    rng = np.random.default_rng(28)
    w, h = 800, 600
    img = street_background(samples, w, h, rng)
    pole(img, 384, 0, h - 40, 22)
    img[h - 44:h - 34, 370:420] *= 0.55  # pole shadow on the pavement
    sign, boxes = tram_sign(scale=1.0, weathered=0.5, seed=5)
    dst = [(152, 92), (640, 112), (628, 412), (160, 398)]  # seen a little from the left
    rgb, alpha, H = warp_rgba(sign, dst, (w, h))
    shadow = cv2.GaussianBlur(alpha, (0, 0), 7)
    shadow = shifted(shadow, 12, 10)
    img *= (1 - 0.35 * shadow)[..., None]
    light = np.linspace(1.08, 0.9, w, dtype=np.float32)[None, :, None]  # morning sun from the left
    img = img * (1 - alpha[..., None]) + rgb * light * alpha[..., None]
    out = Image.fromarray(photo_finish(img, rng, vignette=0.3, grain=3.5, soften=0.7))
    return out, {k: warped_box(H, b) for k, b in boxes.items()}


def build_tram_ref(samples) -> tuple[Image.Image, list[int], list[int]]:
    """The same sign, another day: closer, seen from the right, under a tree, in flat light; returns the picture,
    the sign's box and the route line's box."""
    rng = np.random.default_rng(2805)
    w, h = 480, 360
    img = vgradient(h, w, (178, 196, 206), (206, 214, 212))
    leaves = tint(samples["grass.png"], (w, h), (30, 60, 28), (120, 150, 80), contrast=1.1)
    cover = np.clip(smooth_noise(rng, h, w, 6) * 1.8 - 0.5, 0, 1)[..., None]
    img = cv2.GaussianBlur(img * (1 - cover) + leaves * cover, (0, 0), 3)
    pole(img, 226, 0, h, 16)
    sign, boxes = tram_sign(scale=0.7, weathered=0.9, seed=11)
    rgb, alpha, H = warp_rgba(sign, [(40, 56), (430, 40), (440, 308), (34, 300)], (w, h))
    img = img * (1 - alpha[..., None]) + rgb * 0.86 * alpha[..., None]
    out = Image.fromarray(photo_finish(img, rng, vignette=0.2, grain=3.0, soften=0.8))
    return out, warped_box(H, (0, 0, *sign.size)), warped_box(H, boxes["MARTIM MONIZ - PRAZERES"])


def build_castle_view(samples) -> Image.Image:
    """From the castle walls: Alfama's roofs falling away to the Tagus, the crenellated wall in front."""
    rng = np.random.default_rng(1147)
    w, h = 800, 533
    img = vgradient(h, w, (92, 146, 212), (200, 216, 230))
    clouds = np.clip(smooth_noise(rng, h, w, 9) * 1.7 - 0.85, 0, 1) * np.linspace(1, 0.3, h)[:, None]
    img = img * (1 - clouds[..., None] * 0.85) + 246 * clouds[..., None] * 0.85
    horizon = round(h * 0.27)
    far = tint(samples["grass.png"], (w, 14), (108, 118, 128), (150, 158, 168))  # the far bank, in haze
    img[horizon - 14:horizon] = cv2.GaussianBlur(far, (0, 0), 1.5)
    river_h = round(h * 0.11)
    river = vgradient(river_h, w, (150, 172, 190), (96, 128, 152))
    river += (smooth_noise(rng, river_h, w, 70)[..., None] - 0.5) * 16
    img[horizon:horizon + river_h] = river
    # houses, drawn from the river bank towards the viewer: roofs overlap the walls of the row behind
    town = Image.fromarray(u8(img))
    d = ImageDraw.Draw(town)
    walls = [(238, 232, 216), (236, 210, 162), (226, 176, 146), (244, 240, 232), (206, 176, 126), (176, 196, 202),
             (232, 222, 196)]
    y, row = horizon + river_h - 4.0, 0
    while y < h + 40:
        size = 10 + row * 6.5
        x = -float(rng.uniform(0, size * 2))
        while x < w:
            bw = size * rng.uniform(1.6, 3.2)
            top = y - size * rng.uniform(0.0, 0.5)
            wall = tuple(int(c * rng.uniform(0.86, 1.03)) for c in walls[rng.integers(0, len(walls))])
            d.rectangle([x, top, x + bw, top + size * 3], fill=wall)
            d.rectangle([x + bw * 0.8, top, x + bw, top + size * 3], fill=tuple(int(c * 0.8) for c in wall))
            for k in range(max(1, int(bw / (size * 0.8)))):
                wx = x + size * 0.3 + k * size * 0.8
                if wx + size * 0.3 < x + bw * 0.78:
                    d.rectangle([wx, top + size * 0.45, wx + size * 0.28, top + size * 0.95], fill=(62, 60, 64))
            r = tuple(int(c * rng.uniform(0.82, 1.12)) for c in (178, 84, 52))
            rise = size * rng.uniform(0.45, 0.7)
            d.polygon([(x - 2, top), (x + bw + 2, top), (x + bw - size * 0.5, top - rise),
                       (x + size * 0.5, top - rise)],
                      fill=r)
            d.polygon([(x + bw + 2, top), (x + bw - size * 0.5, top - rise), (x + bw * 0.8, top)],
                      fill=tuple(int(c * 0.78) for c in r))
            if rng.random() < 0.08:  # a cypress between the houses (round trees read as umbrellas to a detector)
                tr = size * rng.uniform(0.35, 0.5)
                d.ellipse([x + bw * 0.3, top - rise - tr * 5, x + bw * 0.3 + 2 * tr, top - rise + tr],
                          fill=(44, 70, 40))
            x += bw + float(rng.uniform(-1, 2))
        y += size * 0.9
        row += 1
    img = f32(town)
    tex = tint(samples["gravel.png"], (w, h), (-16, -16, -16), (16, 16, 16), contrast=0.9)
    img[horizon:] = cv2.GaussianBlur(img[horizon:] + tex[horizon:] * 0.7, (0, 0), 0.8)
    haze = np.clip(1 - (np.arange(h, dtype=np.float32) - horizon) / (h * 0.5), 0, 1)[:, None, None] * 0.35
    img[horizon:] = img[horizon:] * (1 - haze[horizon:]) + np.array((200, 212, 224), np.float32) * haze[horizon:]
    # the castle wall along the bottom, close and in shade, and pine branches reaching in at the top right
    wall_top, merlon_h, merlon_w, gap = round(h * 0.78), 54, 86, 58
    sh = h - wall_top + merlon_h
    stone = tint(samples["brick.png"].resize((256, 256)), (w, sh), (86, 76, 64), (170, 156, 134), contrast=0.8)
    stone += (smooth_noise(rng, sh, w, 30)[..., None] - 0.5) * 30
    shapes = [("rectangle", [0, merlon_h, w, sh])]
    for x in range(-30, w, merlon_w + gap):
        shapes.append(("rectangle", [x, 0, x + merlon_w, merlon_h]))
        stone[:merlon_h, max(x + merlon_w - 12, 0):max(x + merlon_w, 0)] *= 0.7  # the merlon's shaded side
    stone[:6] *= 1.15  # sunlit tops
    stone[merlon_h:merlon_h + 6] *= 1.15
    paste(img, stone, mask_from(shapes, (w, sh), blur=0.7), 0, wall_top - merlon_h)
    pine = tint(samples["grass.png"], (300, 150), (14, 34, 18), (76, 104, 56), contrast=1.3)
    crown = mask_from([("ellipse", [20, -60, 340, 110]), ("ellipse", [140, 40, 320, 150])], (300, 150), blur=5)
    paste(img, pine, crown * 0.97, w - 200, -20)
    return Image.fromarray(photo_finish(img, rng, vignette=0.22, grain=3.0, soften=0.5))


def build_chelsea_window(samples) -> tuple[Image.Image, list[int]]:
    """Chelsea on the living-room windowsill, flipped and scaled, with a potted plant; returns the cat's box."""
    rng = np.random.default_rng(2014)
    w, h = 800, 600
    img = vgradient(h, w, (226, 220, 208), (200, 192, 178))  # plaster wall
    img += (smooth_noise(rng, h, w, 30)[..., None] - 0.5) * 10
    # window: frame, glass with the Utrecht houses across the street, out of focus
    fx0, fy0, fx1, fy1 = 70, 20, 730, 430
    img[fy0:fy1, fx0:fx1] = (246, 246, 242)
    gx0, gy0, gx1, gy1 = fx0 + 26, fy0 + 26, fx1 - 26, fy1 - 10
    gw, gh = gx1 - gx0, gy1 - gy0
    outside = vgradient(gh, gw, (170, 196, 222), (214, 224, 232))
    houses = tint(samples["brick.png"], (gw, 250), (92, 46, 34), (170, 96, 70), contrast=0.8)
    outside[gh - 250:] = houses
    for i in range(6):
        x = 20 + i * 105
        outside[gh - 220:gh - 120, x:x + 50] = (236, 236, 230)
        outside[gh - 212:gh - 128, x + 6:x + 44] = (60, 70, 80)
    outside[gh - 262:gh - 250] = (70, 66, 64)  # gutter
    img[gy0:gy1, gx0:gx1] = cv2.GaussianBlur(outside, (0, 0), 5)
    img[gy0:gy1, (gx0 + gx1) // 2 - 9:(gx0 + gx1) // 2 + 9] = (244, 244, 240)  # mullion
    glare = np.clip(1 - np.abs(np.arange(gw)[None, :] - (np.arange(gh)[:, None] * 0.6 + 60)) / 80, 0, 1)
    img[gy0:gy1, gx0:gx1] += glare[..., None] * 24
    # sill: a painted board with a lit top and a front edge in shade
    sill_y = 470
    img[sill_y - 44:sill_y] = vgradient(44, w, (214, 210, 202), (238, 236, 230))
    img[sill_y:sill_y + 40] = vgradient(40, w, (222, 220, 214), (196, 192, 184))
    img[sill_y + 40:sill_y + 54] *= np.linspace(0.5, 0.9, 14, dtype=np.float32)[:, None, None]
    img[sill_y - 2:sill_y + 1] *= 0.86
    # the cat, flipped and scaled, lying on the sill: her chest rests on the sill top. The flipped photo has the
    # blurred room on its left: the mask keeps her head and chest only
    cat = ImageOps.mirror(samples["chelsea.png"]).resize((450, 300), Image.Resampling.LANCZOS)
    cat_arr = f32(cat) * 1.02
    cw, ch = cat.size
    cx, cy = 170, sill_y - 10 - ch
    m = mask_from([("ellipse", [round(cw * 0.12), 0, cw + 10, ch * 2 - 20])], (cw, ch), blur=8)
    m[ch - 30:] *= np.linspace(1, 0, 30, dtype=np.float32)[:, None] ** 0.5  # soft where the chest meets the sill
    paste(img, cat_arr, m, cx, cy)
    contact = np.zeros((h, w), np.float32)
    contact[sill_y - 16:sill_y - 4, cx + 60:cx + cw - 40] = 1
    img *= (1 - 0.25 * cv2.GaussianBlur(contact, (0, 0), 6))[..., None]
    # potted plant on the right
    pot = mask_from([("polygon", [(14, 0), (126, 0), (110, 104), (30, 104)])], (140, 106), blur=1)
    pot_rgb = np.broadcast_to(np.linspace(0.75, 1.12, 140, dtype=np.float32)[None, :, None] *
                              np.array((186, 96, 62), np.float32), (106, 140, 3)).copy()
    paste(img, pot_rgb, pot, 622, sill_y - 98)
    leaves = tint(samples["grass.png"], (240, 230), (22, 64, 28), (112, 164, 72), contrast=1.2)
    crown = mask_from([("ellipse", [20 + 34 * (i % 4), 10 + 40 * (i // 4), 110 + 34 * (i % 4), 90 + 40 * (i // 4)])
                       for i in range(12) if (i % 4, i // 4) not in ((0, 0), (3, 0))], (240, 230), blur=3)
    paste(img, leaves, crown, 572, sill_y - 300)
    box = [cx + round(cw * 0.12), cy, cx + cw, sill_y - 10]
    return Image.fromarray(photo_finish(img, rng, vignette=0.28, grain=3.0, soften=0.5)), box


def build_chelsea_ref(samples) -> tuple[Image.Image, list[int], list[int]]:
    """A tighter, unflipped, cooler-lit crop of the original Chelsea photo; returns the fur's and the eyes' boxes."""
    src = samples["chelsea.png"].crop((70, 10, 390, 290))  # 320 x 280: eyes, nose, forehead stripes
    arr = f32(src) * np.array((0.94, 0.98, 1.06), np.float32)
    img = Image.fromarray(u8(arr)).resize((384, 336), Image.Resampling.LANCZOS)
    return img, [0, 0, 384, 300], [70, 84, 340, 192]


def build_cafe(samples) -> Image.Image:
    rng = np.random.default_rng(1905)
    arr = f32(samples["coffee.png"]) * np.array((1.03, 1.0, 0.95), np.float32)  # warm café light
    return Image.fromarray(photo_finish(arr, rng, vignette=0.18, grain=2.0, soften=0.0))


def build_cup_ref(samples) -> tuple[Image.Image, list[int]]:
    """The cup, cropped close and mirrored; returns the cup-and-saucer box."""
    src = ImageOps.mirror(samples["coffee.png"]).crop((110, 0, 530, 400))  # 420 x 400
    arr = f32(src) * np.array((0.98, 1.0, 1.04), np.float32) + 6
    return Image.fromarray(u8(arr)), [10, 16, 412, 392]


def build_poster(samples) -> tuple[Image.Image, dict[str, list[int]]]:
    """Two framed prints in a museum: Eileen Collins and the DSCOVR launch; returns the caption boxes."""
    rng = np.random.default_rng(1995)
    w, h = 800, 600
    img = vgradient(h, w, (46, 58, 74), (30, 38, 50))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    spot = np.exp(-(((xx - 300) / 260) ** 2 + ((yy - 160) / 260) ** 2))
    img = img * (1 + 1.1 * spot[..., None])
    img += (smooth_noise(rng, h, w, 40)[..., None] - 0.5) * 8
    boxes: dict[str, list[int]] = {}

    def framed(photo: Image.Image, pw: int, lines: list[tuple[str, int]]) -> tuple[Image.Image, list]:
        photo = photo.resize((pw, round(pw * photo.height / photo.width)), Image.Resampling.LANCZOS)
        pad, cap = 24, sum(s + 12 for _, s in lines) + 24
        sheet = Image.new("RGBA", (pw + 2 * pad, photo.height + 2 * pad + cap), (248, 246, 240, 255))
        sheet.paste(photo, (pad, pad))
        d = ImageDraw.Draw(sheet)
        y, out = photo.height + pad + 18, []
        for text, size in lines:
            f = font(size)
            bb = d.textbbox((0, 0), text, font=f)
            pos = ((sheet.width - (bb[2] - bb[0])) / 2 - bb[0], y)
            d.text(pos, text, font=f, fill=(24, 24, 28, 255))
            out.append((text, d.textbbox(pos, text, font=f)))
            y += size + 12
        frame = Image.new("RGBA", (sheet.width + 28, sheet.height + 28), (22, 20, 18, 255))
        frame.paste(sheet, (14, 14))
        return frame, [(t, (b[0] + 14, b[1] + 14, b[2] + 14, b[3] + 14)) for t, b in out]

    big, lines = framed(samples["astronaut.png"], 300, [("EILEEN COLLINS", 34), ("FIRST WOMAN TO PILOT", 22),
                                                         ("THE SPACE SHUTTLE", 22), ("STS-63 · 1995", 22)])
    x0, y0 = 120, 40
    dst = [(x0, y0), (x0 + big.width * 0.96, y0 + 14), (x0 + big.width * 0.96, y0 + big.height - 2),
           (x0, y0 + big.height)]
    shadow = np.zeros((h, w), np.float32)
    rgb, alpha, H = warp_rgba(big, dst, (w, h))
    shadow += alpha
    for t, b in lines:
        boxes[t] = warped_box(H, b)
    small, lines2 = framed(samples["rocket.jpg"], 220, [("DSCOVR · FALCON 9", 18), ("CAPE CANAVERAL 2015", 16)])
    x1, y1 = 530, 150
    dst2 = [(x1, y1 + 10), (x1 + small.width * 0.93, y1 + 28), (x1 + small.width * 0.93, y1 + small.height + 6),
            (x1, y1 + small.height + 10)]
    rgb2, alpha2, H2 = warp_rgba(small, dst2, (w, h))
    shadow += alpha2
    for t, b in lines2:
        boxes[t] = warped_box(H2, b)
    shadow = shifted(cv2.GaussianBlur(np.clip(shadow, 0, 1), (0, 0), 9), 10, 12)
    img *= (1 - 0.45 * shadow)[..., None]
    lit = (1 + 0.25 * spot)[..., None]
    img = img * (1 - alpha[..., None]) + rgb * 0.9 * lit * alpha[..., None]
    img = img * (1 - alpha2[..., None]) + rgb2 * 0.82 * lit * alpha2[..., None]
    reflection = np.clip(1 - np.abs(xx - yy * 0.5 - 260) / 60, 0, 1) * alpha
    img += reflection[..., None] * 22  # glare on the glass
    return Image.fromarray(photo_finish(img, rng, vignette=0.3, grain=4.0, soften=0.6)), boxes


# ----------------------------------------------------------------------------------------------- video

FPS = 12
VIDEO_SIZE = (640, 360)
SCENE_SECONDS = 6


def ken_burns(photo: Image.Image, frames: int, start: tuple[float, float, float], end: tuple[float, float, float]):
    """Frames moving a 16:9 window smoothly over the photo: (centre x, centre y, width) as fractions of the photo."""
    arr = np.asarray(photo.convert("RGB"))[..., ::-1].astype(np.float32)  # BGR for OpenCV
    arr = cv2.GaussianBlur(arr, (0, 0), 1.0)  # phone video is softer than the stills; grain would double the size
    ph, pw = arr.shape[:2]
    vw, vh = VIDEO_SIZE
    for i in range(frames):
        t = i / max(frames - 1, 1)
        t = t * t * (3 - 2 * t)  # ease in and out
        cx, cy, cw = (a + (b - a) * t for a, b in zip(start, end, strict=True))
        win_w = cw * pw
        win_h = win_w * vh / vw
        x0 = min(max(cx * pw - win_w / 2, 0), pw - win_w)
        y0 = min(max(cy * ph - win_h / 2, 0), ph - win_h)
        s = vw / win_w
        M = np.float32([[s, 0, -x0 * s], [0, s, -y0 * s]])
        yield cv2.warpAffine(arr, M, VIDEO_SIZE, flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REFLECT)


CUES = [
    "We started the day with a bica at Café A Brasileira in Chiado.",
    "Then tram 28 carried us up the hill to São Jorge castle.",
    "From the castle walls we could see all of Alfama and the Tagus.",
    "Back home in Utrecht, Chelsea had kept the windowsill warm for us.",
]


def srt_time(seconds: float) -> str:
    ms = round(seconds * 1000)
    return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"


def build_video(photos: list[Image.Image], path: Path) -> list[tuple[float, float, str]]:
    moves = [((0.5, 0.45, 0.92), (0.47, 0.4, 0.62)),  # coffee: slow push in on the cup
             ((0.38, 0.45, 0.95), (0.5, 0.36, 0.72)),  # tram stop: drift right and up onto the sign
             ((0.3, 0.5, 0.7), (0.7, 0.46, 0.7)),  # castle view: pan across the roofs
             ((0.42, 0.52, 0.62), (0.5, 0.5, 1.0))]  # Chelsea: pull back to the whole window
    frames_per_scene = FPS * SCENE_SECONDS
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = None
    for fourcc in ("avc1", "mp4v"):
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), FPS, VIDEO_SIZE)
        if writer.isOpened():
            print(f"video codec: {fourcc}")
            break
        writer.release()
    else:
        raise SystemExit("OpenCV cannot write mp4 here (neither avc1 nor mp4v)")
    for photo, (a, b) in zip(photos, moves, strict=True):
        for frame in ken_burns(photo, frames_per_scene, a, b):
            writer.write(u8(frame))
    writer.release()
    cues = []
    for i, text in enumerate(CUES):
        start = i * SCENE_SECONDS
        cues.append((start + (0.5 if i == 0 else 0.3), start + SCENE_SECONDS - 0.3, text))
    srt = "".join(f"{i}\n{srt_time(s)} --> {srt_time(e)}\n{t}\n\n" for i, (s, e, t) in enumerate(cues, 1))
    path.with_suffix(".srt").write_text(srt, encoding="utf-8")
    return cues


# ----------------------------------------------------------------------------------------------- knowledge pack


def knowledge_pack(chelsea_box, eyes_box, sign_box, sign_text_box, cup_box) -> str:
    def b(box):
        return "[" + ", ".join(str(int(v)) for v in box) + "]"

    return f"""# Knowledge pack for the example folder: who and what recurs in Maya's photos.
# Reference photos are relative to this file; boxes are [x1, y1, x2, y2] in pixels of the first reference photo.
# Built by examples/build_example_media.py.
name: Maya's household and places
entities:
  - name: Chelsea
    kind: pet
    description: Our tabby cat. Green eyes, a pink nose, and a favourite spot on the living-room windowsill.
    reference_photos: [refs/chelsea.jpg]
    elements:
      - name: tabby fur
        description: orange-brown tabby fur with dark stripes on the forehead and cheeks
        labels: [cat, tabby, tiger cat, Egyptian cat]
        text: []
        box: {b(chelsea_box)}
      - name: green eyes
        description: large yellow-green eyes with black pupils
        labels: []
        text: []
        box: {b(eyes_box)}
  - name: Tram 28 stop
    kind: place
    description: The yellow stop sign of Lisbon's tram 28 (Martim Moniz - Prazeres) where we got on in May 2025.
    reference_photos: [refs/tram-28-sign.jpg]
    elements:
      - name: tram stop sign
        description: yellow sign on a grey pole, a black plate with the route number 28, PARAGEM and CARRIS beside it
        labels: [street sign]
        text: ["28", MARTIM, MONIZ]
        box: {b(sign_box)}
      - name: route line
        description: the route printed along the bottom of the sign
        labels: []
        text: [MARTIM, MONIZ, PRAZERES]
        box: {b(sign_text_box)}
  - name: The bica cup at A Brasileira
    kind: object
    description: The dark red espresso cup and saucer, with a steel spoon, from our breakfast at Café A Brasileira.
    reference_photos: [refs/bica-cup.jpg]
    elements:
      - name: espresso cup
        description: glossy dark red cup on a matching saucer on a wooden table
        labels: [cup, espresso, coffee mug]
        text: []
        box: {b(cup_box)}
"""


# ----------------------------------------------------------------------------------------------- checks


def check_ocr(path: Path, must: list[str]) -> list[tuple[str, list[int], float]]:
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError:
        print(f"  (rapidocr_onnxruntime not installed: OCR check of {path.name} skipped)")
        return []
    img = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
    result, _ = RapidOCR()(np.asarray(img)[..., ::-1])
    found = []
    for quad, text, score in result or []:
        xs, ys = [p[0] for p in quad], [p[1] for p in quad]
        found.append((text, [round(min(xs)), round(min(ys)), round(max(xs)), round(max(ys))], float(score)))
    # PP-OCR's recogniser mostly drops the spaces between English words ("MARTIMMONIZ-PRAZERES"): compare without
    joined = "".join(t for t, _, _ in found).upper().replace(" ", "")
    missing = [m for m in must if m.upper().replace(" ", "") not in joined]
    for text, box, score in found:
        print(f"  OCR {path.name}: {text!r} box={box} score={score:.2f}")
    if missing:
        raise SystemExit(f"OCR did not read {missing} in {path}")
    return found


def check_video(path: Path, cuts: list[float]) -> list[float]:
    cap = cv2.VideoCapture(str(path))
    n, fps = int(cap.get(cv2.CAP_PROP_FRAME_COUNT)), cap.get(cv2.CAP_PROP_FPS)
    ok, frame = cap.read()
    cap.release()
    if not ok or frame.shape[:2] != VIDEO_SIZE[::-1]:
        raise SystemExit(f"{path} does not read back with OpenCV")
    print(f"  video reads back: {n} frames at {fps:g} fps = {n / fps:.1f} s, {frame.shape[1]}x{frame.shape[0]}")
    try:
        from scenedetect import AdaptiveDetector, detect
    except ImportError:
        print("  (scenedetect not installed: cut check skipped)")
        return []
    scenes = detect(str(path), AdaptiveDetector())
    found = [round(s.seconds if hasattr(type(s), "seconds") else s.get_seconds(), 2) for s, _ in scenes[1:]]
    print(f"  scenedetect AdaptiveDetector cuts at {found} s (placed at {cuts})")
    if len(found) != len(cuts) or any(abs(a - b) > 1 / FPS + 1e-6 for a, b in zip(found, cuts, strict=True)):
        raise SystemExit(f"scene cuts {found} differ from {cuts}")
    return found


# ----------------------------------------------------------------------------------------------- main


def main() -> None:
    samples = load_samples()
    photos = HERE / "photos"
    lisbon, home, leiden = photos / "2025-05-lisbon", photos / "home", photos / "2024-10-leiden"
    pack = HERE / "knowledge-pack"

    cafe = save_photo(build_cafe(samples), lisbon / "cafe-breakfast.jpg", CAFE)
    (lisbon / "cafe-breakfast.txt").write_text(
        "Breakfast bica at Café A Brasileira in Chiado, before we caught tram 28 up to the castle.\n", encoding="utf-8")
    tram, tram_boxes = build_tram_stop(samples)
    tram = save_photo(tram, lisbon / "tram-stop.jpg", TRAM)
    castle = save_photo(build_castle_view(samples), lisbon / "castle-view.jpg", CASTLE)
    window, cat_box = build_chelsea_window(samples)
    window = save_photo(window, home / "chelsea-window.jpg", WINDOW, orientation=6)
    poster, poster_boxes = build_poster(samples)
    save_photo(poster, leiden / "astronaut-poster.jpg", POSTER)

    chelsea_ref, chelsea_box, eyes_box = build_chelsea_ref(samples)
    save_ref(chelsea_ref, pack / "refs" / "chelsea.jpg")
    tram_ref, sign_box, sign_text_box = build_tram_ref(samples)
    save_ref(tram_ref, pack / "refs" / "tram-28-sign.jpg")
    cup_ref, cup_box = build_cup_ref(samples)
    save_ref(cup_ref, pack / "refs" / "bica-cup.jpg")
    (pack / "trove-pack.yaml").write_text(
        knowledge_pack(chelsea_box, eyes_box, sign_box, sign_text_box, cup_box), encoding="utf-8")

    video = HERE / "videos" / "lisbon-day.mp4"
    cues = build_video([cafe, tram, castle, window], video)

    print("built:")
    for p in sorted([*photos.rglob("*.*"), *pack.rglob("*.*"), video, video.with_suffix(".srt")]):
        print(f"  {p.relative_to(HERE)}  {p.stat().st_size / 1024:.0f} KiB")
    print(f"  cat box in chelsea-window.jpg (upright): {cat_box}")
    print(f"  sign text boxes in tram-stop.jpg: {tram_boxes}")
    print(f"  caption boxes in astronaut-poster.jpg: {poster_boxes}")
    for s, e, t in cues:
        print(f"  cue {srt_time(s)} --> {srt_time(e)}  {t}")
    print("checks:")
    check_ocr(lisbon / "tram-stop.jpg", ["28", "MARTIM", "MONIZ", "PRAZERES"])
    check_ocr(leiden / "astronaut-poster.jpg", ["EILEEN COLLINS"])
    check_ocr(pack / "refs" / "tram-28-sign.jpg", ["28", "MARTIM", "MONIZ"])
    check_video(video, [float(SCENE_SECONDS * i) for i in range(1, len(CUES))])


if __name__ == "__main__":
    main()
