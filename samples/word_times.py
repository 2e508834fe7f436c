#!/usr/bin/env python3
"""Where each spoken word of a sample ends, from the synthesizer itself: NAME.words.json.

The speech benchmark measured a word's commit latency from the end Whisper aligns it to, and
Whisper aligns an utterance's last word 0.1-0.26 s before its sound stops on these samples: the
aligner's error counted as engine latency.  espeak-ng knows where every word is.  Its library
reports a WORD event where each word starts and a PHONEME event per phoneme (a pause is the
phoneme "_" or "_:"), each at the sample it starts on: a word ends where the next word starts,
or a pause or the end of the text.

Each turn is synthesized again through libespeak-ng (ctypes) with make_samples' voice and speed.
The library's audio is espeak-ng's command line output sample for sample, so the turn is rendered
again exactly as make_samples renders it (sox, trim) and checked against the sample's wav, bit for
bit, before its word times are mapped into the sample.  A sample that does not match (other
espeak-ng or sox versions) is reported and gets no file.

Output: {"words": [{"turn": k, "word": text, "start": s, "end": s}, ...]}, times in seconds of the
sample's wav.  Usage: python3 samples/word_times.py [NAME ...]  (default: every sample with turns)
"""
from __future__ import annotations

import argparse
import array
import ctypes
import json
import multiprocessing
import re
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import make_samples as ms

WORD, END, MSG_TERMINATED, PHONEME = 1, 5, 6, 7
PUNCTUATION = ".,!?;:\"¿¡"
SYNCHRONOUS, PHONEME_EVENTS, RATE, POS_CHARACTER, ENDPAUSE = 2, 1, 1, 1, 0x1000


class _Id(ctypes.Union):
    _fields_ = [("number", ctypes.c_int), ("name", ctypes.c_char_p), ("string", ctypes.c_char * 8)]


class _Event(ctypes.Structure):  # espeak_EVENT, speak_lib.h
    _fields_ = [("type", ctypes.c_int), ("unique_identifier", ctypes.c_uint), ("text_position", ctypes.c_int),
                ("length", ctypes.c_int), ("audio_position", ctypes.c_int), ("sample", ctypes.c_int),
                ("user_data", ctypes.c_void_p), ("id", _Id)]


_Callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(_Event))


class Espeak:
    """libespeak-ng, synchronous: text -> (22.05 kHz samples, words as (text, first sample, end sample)).

    One text per instance, in a process of its own (:func:`speak`): the library keeps state from one
    text to the next (the same text said twice comes out 1,900 samples longer the second time), and
    terminating and initialising it again in one process hangs."""

    def __init__(self) -> None:
        self._lib = ctypes.CDLL("libespeak-ng.so.1")
        self.rate = self._lib.espeak_Initialize(SYNCHRONOUS, 0, None, PHONEME_EVENTS)
        if self.rate <= 0:
            raise RuntimeError("libespeak-ng did not initialise")
        self._audio: list[bytes] = []
        self._events: list[tuple[int, int, int, int, bytes]] = []
        self._callback = _Callback(self._collect)  # kept referenced while the library holds it
        self._lib.espeak_SetSynthCallback(self._callback)

    def _collect(self, wav, count, events) -> int:
        if wav and count > 0:
            self._audio.append(ctypes.string_at(wav, count * 2))
        i = 0
        while events[i].type != 0:
            e = events[i]
            name = bytes(e.id.string).split(b"\0")[0] if e.type == PHONEME else b""
            self._events.append((e.type, e.text_position, e.length, e.sample, name))
            i += 1
        return 0

    def speak(self, text: str, voice: str, speed: int) -> tuple[array.array, list[tuple[str, int, int]]]:
        self._audio, self._events = [], []
        if self._lib.espeak_SetVoiceByName(voice.encode()) != 0:
            raise RuntimeError(f"espeak-ng has no voice {voice!r}")
        self._lib.espeak_SetParameter(RATE, speed, 0)
        data = text.encode() + b"\0"
        self._lib.espeak_Synth(data, len(data), 0, POS_CHARACTER, 0, ENDPAUSE, None, None)
        self._lib.espeak_Synchronize()
        audio = array.array("h")
        audio.frombytes(b"".join(self._audio))  # native byte order, as the library wrote it
        return audio, word_spans(text, self._events, len(audio))


def speak(text: str, voice: str, speed: int) -> tuple[int, array.array, list[tuple[str, int, int]]]:
    """:meth:`Espeak.speak` in a fresh process: (sample rate, audio, words)."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(_speak_here, text, voice, speed).result()


def _speak_here(text: str, voice: str, speed: int) -> tuple[int, array.array, list[tuple[str, int, int]]]:
    espeak = Espeak()
    return (espeak.rate, *espeak.speak(text, voice, speed))


def word_spans(text: str, events: list[tuple[int, int, int, int, bytes]], total: int) -> list[tuple[str, int, int]]:
    """The text's words with the sample each starts on and the sample the next word, a pause or the end
    starts on.  espeak-ng gives no WORD event to some unstressed words ("the", "of", "been"): said with the
    word before them, that word's end is not known, so neither is in the list (nor a word with two events)."""
    tokens = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", text)]
    bounds = sorted({sample for kind, _, _, sample, name in events
                     if kind in (WORD, END, MSG_TERMINATED) or (kind == PHONEME and name.startswith(b"_"))}
                    | {total})
    starts: dict[int, list[int]] = {}
    for kind, position, length, sample, _ in events:
        token = next((i for i, (a, b, _) in enumerate(tokens) if a <= position - 1 < b), None)
        if kind == WORD and length and token is not None:  # espeak-ng also marks spaces, with length 0
            starts.setdefault(token, []).append(sample)
    words = []
    for i, (_, _, token) in enumerate(tokens):
        heard = starts.get(i, [])
        if len(heard) == 1 and (i + 1 == len(tokens) or len(starts.get(i + 1, [])) == 1):
            words.append((token.strip(PUNCTUATION), heard[0], next(b for b in bounds if b > heard[0])))
    return words


def sample_words(name: str, tmp: Path) -> list[dict]:
    """Every word of samples/NAME.wav with its start and end (s); raises if a turn does not re-render."""
    meta = json.loads((ms.HERE / f"{name}.json").read_text(encoding="utf-8"))
    wav = ms.read_wav_s16(ms.HERE / f"{name}.wav")
    out = []
    for k, turn in enumerate(meta["turns"]):
        rate, audio, words = speak(turn["text"], turn["voice"], meta["espeak_speed_wpm"])
        raw = tmp / f"{name}_{k:02d}_22k.wav"
        ms.write_wav_s16(raw, audio, rate)
        clip = ms.resample(raw, tmp, f"{name}_{k:02d}")
        first, last = ms.speech_bounds(clip)
        near = round(turn["start"] * ms.SR)  # the json keeps milliseconds: the turn starts within 8 samples
        at = next((i for i in range(near - 8, near + 9) if wav[i: i + last - first] == clip[first:last]), None)
        if at is None:
            raise ValueError(f"{name} turn {k} does not re-render as in the wav (other espeak-ng or sox?)")
        # 22.05 kHz sample -> seconds of the 16 kHz clip (sox keeps time zero) -> the sample's time
        offset = (at - first) / ms.SR
        out += [{"turn": k, "word": word, "start": round(offset + s / rate, 4),
                 "end": round(offset + e / rate, 4)} for word, s, e in words]
    return out


def main(names: list[str]) -> int:
    """Write NAME.words.json for each sample named (default: every wav with a script); 1 if one fails."""
    names = names or sorted(p.stem for p in ms.HERE.glob("*.json")
                            if p.with_suffix(".wav").is_file() and "turns" in json.loads(p.read_text()))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            if not (ms.HERE / f"{name}.json").is_file() or not (ms.HERE / f"{name}.wav").is_file():
                print(f"no sample {name!r}: samples/{name}.wav and its .json are needed", file=sys.stderr)
                failed += 1
                continue
            try:
                words = sample_words(name, Path(tmp))
            except ValueError as exc:
                print(exc, file=sys.stderr)
                failed += 1
                continue
            (ms.HERE / f"{name}.words.json").write_text(json.dumps({"words": words}, indent=1) + "\n")
            print(f"{name}: {len(words)} words")
    return 1 if failed else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="samples to time, e.g. meeting standup (default: every samples/NAME.wav with a NAME.json)")
    sys.exit(main(parser.parse_args().names))
