"""Named voice profiles (``--voices DIR``): a known voice is named from its first utterance.

A profile folder holds one file per person, named after them: a short clip of their voice (``Alice.wav``, any
format PyAV reads; 2 s of speech or more, found with the Silero VAD the speech stage uses) or a profile saved
from a past session (``Alice.json``: {``name``, ``embedding``, ``seconds``}, written by ``streamtwin voices
save``).  A clip that is not speech or too short, two profiles of one name, or a file that is neither: one
:class:`ProfileError` saying which file and why (the CLI prints it in one line and exits 1).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path

import av
import numpy as np

from streamtwin.speakers.encoder import EMBEDDING_SIZE, shared_encoder
from streamtwin.speech.speech_stage import VAD_WINDOW, StreamingVAD

SAMPLE_RATE = 16000
MIN_SPEECH_S = 2.0
SPEECH_PROB = 0.5
PROFILE_SUFFIX = ".json"


class ProfileError(ValueError):
    """A voice profile that cannot be used: the message names the file."""


@dataclass(frozen=True)
class VoiceProfile:
    name: str
    embedding: np.ndarray  # L2-normalised, 256
    seconds: float  # of speech behind it

    def to_json(self) -> str:
        return json.dumps({"name": self.name, "embedding": [round(float(x), 6) for x in self.embedding],
                           "seconds": round(self.seconds, 2)}) + "\n"


def load_profiles(folder: str | Path) -> list[VoiceProfile]:
    """Every profile in ``folder``, in name order; raises :class:`ProfileError`.  Read once while the folder's
    files stay as they were (each session of a server asks again: embedding clips again would stall its loop)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ProfileError(f"--voices {folder}: not a folder")
    files = tuple(sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")))
    return list(_load(folder, files, tuple((p.stat().st_mtime_ns, p.stat().st_size) for p in files)))


@functools.lru_cache(maxsize=4)
def _load(folder: Path, files: tuple[Path, ...], _stamps: tuple[tuple[int, int], ...]) -> tuple[VoiceProfile, ...]:
    if not files:
        raise ProfileError(f"--voices {folder}: no profiles in it (a clip or a .json per person)")
    seen: dict[str, Path] = {}
    profiles = []
    for path in files:
        profile = _read_json(path) if path.suffix.lower() == PROFILE_SUFFIX else _read_clip(path)
        key = profile.name.casefold()
        if key in seen:
            raise ProfileError(f"--voices: two profiles named {profile.name}: {seen[key].name} and {path.name}")
        seen[key] = path
        profiles.append(profile)
    return tuple(profiles)


def _read_json(path: Path) -> VoiceProfile:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        name, seconds = str(data["name"]).strip(), float(data["seconds"])
        embedding = np.asarray(data["embedding"], dtype=np.float64)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ProfileError(f"--voices: {path.name} is not a voice profile ({exc})") from None
    if embedding.ndim == 1 and len(embedding) not in (0, EMBEDDING_SIZE):
        raise ProfileError(f"--voices: {path.name} holds {len(embedding)} numbers, made by another speaker encoder "
                           f"(this one gives {EMBEDDING_SIZE}): save it again with streamtwin voices save")
    norm = float(np.linalg.norm(embedding)) if embedding.shape == (EMBEDDING_SIZE,) else 0.0
    if not name or not math.isfinite(norm) or norm == 0 or seconds < MIN_SPEECH_S:
        raise ProfileError(f"--voices: {path.name} is not a voice profile (a name, {EMBEDDING_SIZE} numbers, "
                           f"{MIN_SPEECH_S:g} s of speech or more)")
    return VoiceProfile(name, embedding / norm, seconds)


def _read_clip(path: Path) -> VoiceProfile:
    samples = _decode(path)
    speech = speech_only(samples)
    seconds = len(speech) / SAMPLE_RATE
    if seconds == 0:
        raise ProfileError(f"--voices: {path.name} has no speech in it")
    if seconds < MIN_SPEECH_S:
        raise ProfileError(f"--voices: {path.name} holds {math.floor(seconds * 10) / 10:.1f} s of speech; a profile needs "
                           f"{MIN_SPEECH_S:g} s or more")
    return VoiceProfile(path.stem.strip(), shared_encoder().embed_utterance(speech).astype(np.float64), seconds)


def _decode(path: Path) -> np.ndarray:
    try:
        with av.open(str(path)) as container:
            resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)
            chunks = [f.to_ndarray().reshape(-1) for frame in container.decode(audio=0)
                      for f in resampler.resample(frame)]
            chunks += [f.to_ndarray().reshape(-1) for f in resampler.resample(None)]
    except (av.FFmpegError, IndexError, ValueError) as exc:
        raise ProfileError(f"--voices: {path.name} is not audio ({exc})") from None
    return np.concatenate(chunks).astype(np.float32) if chunks else np.zeros(0, dtype=np.float32)


def speech_only(samples: np.ndarray) -> np.ndarray:
    """The 32 ms windows Silero VAD hears speech in, joined (the encoder embeds speech, not pauses)."""
    n = len(samples) // VAD_WINDOW
    if n == 0:
        return np.zeros(0, dtype=np.float32)
    windows = samples[: n * VAD_WINDOW].reshape(n, VAD_WINDOW)
    probs = StreamingVAD()(windows)
    return windows[probs >= SPEECH_PROB].reshape(-1)
