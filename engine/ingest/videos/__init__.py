"""Videos -> clips (start/end seconds) with keyframes, plus sidecar subtitles, for the "clip" corpus.

    video = read_video(path)              # one decoding pass; ParseError when unreadable
    for clip in video.clips:              # clip.start_s, clip.end_s, clip.keyframes[i].image (BGR)
        text = transcript(cues_between(cues, clip.start_s, clip.end_s))
    cues = [c for s in read_sidecars(path) for c in s.cues]

Detectors, OCR and encoders on the keyframes are the caller's job.
"""

from engine.ingest.videos.clips import plan_clips
from engine.ingest.videos.decode import VideoInfo, video_info
from engine.ingest.videos.keyframes import Keyframe
from engine.ingest.videos.reader import Clip, Video, read_video
from engine.ingest.videos.subtitles import (
    Cue,
    Subtitles,
    cues_between,
    find_sidecars,
    read_sidecars,
    read_subtitles,
    transcript,
)

__all__ = ["Clip", "Cue", "Keyframe", "Subtitles", "Video", "VideoInfo", "cues_between",
           "find_sidecars", "plan_clips", "read_sidecars", "read_subtitles", "read_video", "transcript", "video_info"]
