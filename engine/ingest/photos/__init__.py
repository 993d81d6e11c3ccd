"""Photos -> a photo item, its region items (objects, faces, text) and a row of the `photos` table."""

