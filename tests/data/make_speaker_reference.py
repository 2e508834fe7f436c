"""Make tests/data/speaker_reference.json with resemblyzer itself (torch + librosa), not with our numpy port.

Run once, in a throwaway environment that has torch and librosa (the project never installs them), e.g. on
Debian: ``apt-get install python3-torch python3-venv``, ``python3 -m venv --system-site-packages /tmp/ref``,
``/tmp/ref/bin/pip install librosa "scipy<1.12"`` (and remove the venv's numpy 2 so Debian's torch finds its
numpy 1.24), then ``pip install --no-deps resemblyzer==0.1.4`` there or point RESEMBLYZER_DIR at its parent:

    /tmp/ref/bin/python tests/data/make_speaker_reference.py > tests/data/speaker_reference.json

resemblyzer imports webrtcvad at module level only for trim_long_silences, which this does not use (the
pipeline's utterances are already cut by Silero VAD), so a stub stands in for it.
"""

import json
import os
import sys
import types
import wave

import numpy as np

sys.modules.setdefault("webrtcvad", types.ModuleType("webrtcvad"))
if os.environ.get("RESEMBLYZER_DIR"):
    sys.path.insert(0, os.environ["RESEMBLYZER_DIR"])

import librosa  # noqa: E402
import torch  # noqa: E402
from resemblyzer import audio  # noqa: E402
from resemblyzer.voice_encoder import VoiceEncoder  # noqa: E402

SAMPLE = "samples/shared_mic.wav"
# One turn per voice (seconds in the wav, from samples/shared_mic.json), and a short one (one partial, padded).
SPANS = {"david": [0.5, 5.828], "priya": [6.428, 11.759], "tom": [12.259, 16.474], "tom_short": [35.235, 36.477]}


def main() -> None:
    torch.set_num_threads(1)
    encoder = VoiceEncoder("cpu", verbose=False)
    with wave.open(SAMPLE) as f:
        wav = np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").astype(np.float32) / 32768
    out = {
        "made_with": {"resemblyzer": "0.1.4", "torch": torch.__version__, "librosa": librosa.__version__},
        "sample": SAMPLE,
        "spans": {},
    }
    for name, (start, end) in SPANS.items():
        piece = audio.normalize_volume(wav[int(start * 16000) : int(end * 16000)], -30, increase_only=True)
        embedding, partials, _ = encoder.embed_utterance(piece, return_partials=True)
        out["spans"][name] = {
            "start": start,
            "end": end,
            "partials": len(partials),
            "embedding": [round(float(x), 7) for x in embedding],
        }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
