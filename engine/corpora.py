"""The corpora of the vector store, by granularity (UniversalRAG): every item is in exactly one.
Ingest writes them, retrieval searches them, the app reads them; this is the one place they are named."""

PARAGRAPH = "text/paragraph"  # a passage of a text file
DOCUMENT = "text/document"  # a whole text file (or its first part)
PHOTO = "image/photo"  # a whole photo: its description, objects, faces, text
REGION = "image/region"  # an element inside a photo: an object, a face, a line of text, with its box
VISUAL = "image/visual"  # a photo's image-embedding vector (photos like a photo)
LOOKS = "image/looks"  # a photo's vector from an imported text-image model (CLIP/SigLIP): text meets looks
CLIP = "video/clip"  # a moment of a video: its start and end seconds, keyframes, subtitles
VIDEO = "video/video"  # a whole video
