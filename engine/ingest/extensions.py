"""The file extensions of the media Trove reads, in a module that imports no decoder: the scanner,
the sidecar finder and the media ingest all tell files apart by them."""

PHOTO = (".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff", ".bmp", ".gif", ".heic", ".heif")
VIDEO = (".mp4", ".m4v", ".mov", ".mkv", ".avi", ".webm")
SUBTITLE = (".srt", ".vtt")  # sidecar subtitles beside a video
