"""Reading a photo the way a viewer shows it: EXIF orientation applied, first frame of an animation,
RGB pixels. Every failure becomes a ParseError or SkipFile that says why."""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.errors import ParseError, SkipFile

if TYPE_CHECKING:
    from PIL import Image, ImageFile

MAX_MEGAPIXELS = 120  # a larger "photo" is a scan or a bomb: skipped with the reason


@dataclass
class LoadedPhoto:
    """Pixels as numpy BGR uint8 (OpenCV's convention), upright, with the file's metadata."""

    image: np.ndarray
    format: str  # JPEG, PNG, ...
    frames: int  # > 1 for animations and multi-page TIFFs (only the first is read)
    exif: dict  # engine.ingest.photos.exif.read_exif output

    @property
    def width(self) -> int:
        return int(self.image.shape[1])

    @property
    def height(self) -> int:
        return int(self.image.shape[0])


def _open(path: Path) -> ImageFile.ImageFile:

    if path.suffix.lower() in (".heic", ".heif"):
        try:
            from pillow_heif import register_heif_opener  # optional: pip install pillow-heif
        except ImportError as exc:
            raise SkipFile("HEIC photos need the optional pillow-heif package: pip install pillow-heif") from exc
        register_heif_opener()
    return _opened(path, f"not a readable image: the contents are not a {path.suffix.lstrip('.').upper()} "
                         "photo (wrong extension, or damaged)")


def _opened(source: Path | io.BytesIO, unreadable: str) -> ImageFile.ImageFile:
    """Pillow's image, refused over MAX_MEGAPIXELS (a decompression bomb); ParseError(`unreadable`)
    when no reader knows it."""
    from PIL import Image, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = MAX_MEGAPIXELS * 1_000_000
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            return Image.open(source)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise SkipFile(f"too large: over {MAX_MEGAPIXELS} megapixels") from exc
    except UnidentifiedImageError as exc:
        raise ParseError(unreadable) from exc


def load_photo(path: Path) -> LoadedPhoto:
    """The photo at `path`, upright; ParseError for damaged or truncated files."""
    from engine.ingest.photos.exif import read_exif

    image = _open(path)
    try:
        frames = int(getattr(image, "n_frames", 1) or 1)
        exif = read_exif(image)
        rgb = _upright_rgb(image)
    finally:
        image.close()
    return LoadedPhoto(_pixels(rgb), image.format or path.suffix.lstrip(".").upper(), frames, exif)


def picture_pixels(data: bytes) -> np.ndarray:
    """A picture inside a document (its image file's bytes) as BGR pixels, upright; ParseError or
    SkipFile saying why when it cannot be read."""
    with _opened(io.BytesIO(data), "not a picture format that can be read") as image:
        return _pixels(_upright_rgb(image))


def _upright_rgb(image: ImageFile.ImageFile) -> Image.Image:
    """The first frame, EXIF orientation applied, in RGB; ParseError for damaged data."""
    from PIL import ImageOps

    try:
        image.seek(0)
        image.load()  # raises on truncated data
        return ImageOps.exif_transpose(image).convert("RGB")
    except OSError as exc:
        reason = str(exc)
        if "truncated" in reason:
            raise ParseError("truncated image: the file ends before the picture does (an interrupted copy?)") from exc
        raise ParseError(f"damaged image: {reason[:160]}") from exc
    except (ValueError, SyntaxError) as exc:  # Pillow's plugins raise these for malformed headers
        raise ParseError(f"damaged image: {str(exc)[:160]}") from exc


def _pixels(rgb: Image.Image) -> np.ndarray:
    """RGB as BGR numpy pixels; SkipFile for an icon-sized picture."""
    if rgb.width < 8 or rgb.height < 8:
        raise SkipFile(f"too small to be a photo ({rgb.width}x{rgb.height} pixels: an icon or a tracking pixel)")
    return np.asarray(rgb)[:, :, ::-1].copy()
