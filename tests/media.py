"""Generated test media: small videos made with ffmpeg's lavfi sources, decoded with PyAV.

Everything is written under a directory the caller owns (pytest's ``tmp_path``),
so tests stay independent and nothing large is committed.
"""

from __future__ import annotations

import io
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

import av


def lavfi_video(
    path: Path,
    sources: Sequence[str],
    seconds_each: float,
    *,
    fps: int = 15,
    size: tuple[int, int] = (320, 240),
    pix_fmt: str = "yuv420p",
) -> Path:
    """Concatenate lavfi sources ("testsrc", "smptebars", "color=c=black", ...) into one H.264 file.

    Each source plays for ``seconds_each``, so the cuts fall at whole multiples of it.
    Every frame is an intra frame, so a cut is exact to the frame.
    """
    width, height = size
    command = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"]
    for source in sources:
        separator = ":" if "=" in source else "="
        spec = f"{source}{separator}size={width}x{height}:rate={fps}"
        command += ["-t", str(seconds_each), "-f", "lavfi", "-i", spec]
    inputs = "".join(f"[{index}:v]" for index in range(len(sources)))
    command += [
        "-filter_complex",
        f"{inputs}concat=n={len(sources)}:v=1:a=0,format={pix_fmt}[out]",
        "-map",
        "[out]",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-g",
        "1",
        str(path),
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"ffmpeg failed: {result.stderr.strip()}")
    return path


def decoded_frames(path: Path) -> Iterator[tuple[av.VideoFrame, float]]:
    """Yield (frame, media time in seconds) for every video frame of ``path``."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        for frame in container.decode(stream):
            yield frame, float(frame.time)


def decode_jpeg(data: bytes) -> av.VideoFrame:
    """Decode one JPEG image with PyAV; raises if it is not a valid JPEG."""
    with av.open(io.BytesIO(data), format="mjpeg") as container:
        return next(container.decode(video=0))
