"""Photos -> a photo item, its region items (objects, faces, text) and a row of the `photos` table."""

EXTENSIONS = (".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff", ".bmp", ".gif", ".heic", ".heif")
