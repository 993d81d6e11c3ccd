"""Which pictures inside a document are worth indexing as photos: big enough to be a photo, a chart
or a diagram (not a bullet, a logo or a rule), a bounded number per document, each image read
only as far as its header says how big it is."""

from __future__ import annotations

import io

from engine.ingest.parsed import Picture

MIN_SIDE = 100  # pixels: smaller pictures are icons, bullets and rules
MAX_PICTURES = 24  # per document: each one costs a photo's analysis (about a second on 2 cores)
MAX_MEGAPIXELS = 40
MAX_MB = 256  # the kept pictures' bytes, per document (a mailbox of phone photos), held until they are analysed


class Pictures:
    """Collects a document's pictures as its parser meets them, keeping those worth indexing."""

    def __init__(self, limit: int = MAX_PICTURES, max_mb: float = MAX_MB) -> None:
        self.kept: list[Picture] = []
        self.limit, self.max_bytes = limit, int(max_mb * 2**20)
        self._bytes = 0
        self._seen: dict[int, bool] = {}  # a picture's hash: kept? (a logo on every slide is looked at once)

    @property
    def full(self) -> bool:
        return len(self.kept) >= self.limit or self._bytes >= self.max_bytes

    def add(self, data: bytes, page: int | None, alt: str = "") -> bool:
        """Whether the picture is kept (or was, shown before)."""
        key = hash(data)
        if key in self._seen:
            return self._seen[key]
        if self.full:
            return False
        self._seen[key] = worth_indexing(data) and self._bytes + len(data) <= self.max_bytes
        if self._seen[key]:
            self.kept.append(Picture(data, page, " ".join(alt.split())))
            self._bytes += len(data)
        return self._seen[key]


def worth_indexing(data: bytes) -> bool:
    """Whether the image's header says it is at least MIN_SIDE on both sides and not absurdly large
    (nothing is decoded); False for bytes no image reader knows (a vector drawing, a broken file)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        return False
    return min(width, height) >= MIN_SIDE and width * height <= MAX_MEGAPIXELS * 1_000_000
