"""`run --format srt|vtt|md` and the terminal view, on the events of a real run of the speech model.

SRT and WebVTT are read back with strict parsers (`srt`, `webvtt-py`); their text must be the finals'
text, word for word.  The Markdown notes hold a paragraph per utterance (from the finals' own utterance
numbers) and the final twin (folded here from the twin events with `jsonpatch`).
"""

from __future__ import annotations

import io
import re
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import jsonpatch
import pytest
import srt
import webvtt

from streamtwin.events import (
    AssistantDelta,
    AssistantDone,
    AssistantStarted,
    AssistantSwitched,
    SessionEnded,
    SpeakerNamed,
    SpeakerTurns,
    TranscriptFinal,
    TranscriptPartial,
    TranscriptRevised,
    TwinPatch,
    TwinState,
)
from streamtwin.outputs.notes import MarkdownOutput
from streamtwin.outputs.text import DIM, PLAIN, TextOutput, clock
from streamtwin.outputs.subtitles import SubtitleOutput
from streamtwin.speech.wer import normalise, word_error_rate
from tests.cli import Ran, run_main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
VTT_TIMING = re.compile(r"^\d{2,}:\d{2}:\d{2}\.\d{3} --> \d{2,}:\d{2}:\d{2}\.\d{3}$")
MAX_LINE = 42


def render(output_class, events, *args, **options) -> str:
    out = io.StringIO()
    output = output_class(out, *args, **options)
    for event in events:
        output(event)
    return out.getvalue()


def finals_of(events) -> list[TranscriptFinal]:
    return [e for e in events if isinstance(e, TranscriptFinal)]


def spoken_words(events) -> list[str]:
    return " ".join(f.text for f in finals_of(events)).split()


def utterances(events, revised: bool = False) -> list[tuple[float, str]]:
    """(start, text) of each utterance, by the finals' own utterance numbers (``revised``: the text of its
    ``transcript.revised`` when it has one)."""
    grouped: dict[int, list[TranscriptFinal]] = {}
    for final in finals_of(events):
        if final.text.strip():
            grouped.setdefault(final.utterance, []).append(final)
    revisions = {e.utterance: " ".join(e.text.split()) for e in events if isinstance(e, TranscriptRevised) and revised}
    return [(parts[0].start, revisions.get(number) or " ".join(" ".join(p.text.split()) for p in parts))
            for number, parts in grouped.items()]


def speakers(events) -> list[str]:
    """The label each utterance with text ends with (its last labelled final's)."""
    who: dict[int, str] = {}
    for final in finals_of(events):
        if final.speaker:
            who[final.utterance] = final.speaker_name or final.speaker
    said = dict.fromkeys(f.utterance for f in finals_of(events) if f.text.strip())
    return [who.get(u, "") for u in said]


def check_cue_layout(cues: list[tuple[timedelta, timedelta, list[str]]]) -> None:
    assert cues
    for start, end, lines in cues:
        assert start < end <= start + timedelta(seconds=7, milliseconds=1), (start, end, lines)
        assert 1 <= len(lines) <= 2 and all(lines), lines
        assert all(len(line) <= MAX_LINE or " " not in line for line in lines), lines
    for (_, end, _), (start, _, _) in zip(cues, cues[1:]):
        assert end <= start + timedelta(milliseconds=50)  # word times may overlap by a few ms, never a cue


def test_srt_parses_strictly_and_says_what_the_finals_said(meeting_events):
    text = render(SubtitleOutput, meeting_events, "srt")
    subtitles = list(srt.parse(text))  # raises SRTParseError on anything malformed
    assert [s.index for s in subtitles] == list(range(1, len(subtitles) + 1))
    check_cue_layout([(s.start, s.end, s.content.split("\n")) for s in subtitles])
    assert " ".join(s.content for s in subtitles).split() == spoken_words(meeting_events)
    first_word = finals_of(meeting_events)[0].words[0]
    assert abs(subtitles[0].start.total_seconds() - first_word[1]) < 0.001


def test_vtt_parses_strictly_and_says_what_the_finals_said(meeting_events):
    text = render(SubtitleOutput, meeting_events, "vtt")
    assert text.startswith("WEBVTT\n\n")
    timings = [line for line in text.splitlines() if "-->" in line]
    assert timings and all(VTT_TIMING.match(line) for line in timings), timings
    captions = list(webvtt.from_string(text))
    assert len(captions) == len(timings)
    check_cue_layout([(_delta(c.start), _delta(c.end), c.lines) for c in captions])
    assert " ".join(" ".join(c.lines) for c in captions).split() == spoken_words(meeting_events)


def _delta(stamp: str) -> timedelta:
    hours, minutes, seconds = stamp.split(":")
    return timedelta(hours=int(hours), minutes=int(minutes), seconds=float(seconds))


def final_twin(events) -> dict:
    state: dict = {}
    for event in events:
        if isinstance(event, TwinState):
            state = event.state
        elif isinstance(event, TwinPatch):
            state = jsonpatch.apply_patch(state, event.patch)
    return state


def test_markdown_holds_the_final_twin_and_a_paragraph_per_utterance(meeting_events):
    text = render(MarkdownOutput, meeting_events)
    notes, transcript = text.split("\n## Transcript\n\n")
    paragraphs = transcript.strip().split("\n\n")
    expected = utterances(meeting_events, revised=True)
    assert expected != utterances(meeting_events), "no utterance of the meeting was revised: nothing to check"
    assert len(paragraphs) == len(expected) >= 5
    # who spoke, as the page shows it at the end: a label a voice was named by shows that name, in the paragraphs
    # said before the name was given too
    named = {e.speaker: e.name for e in meeting_events if isinstance(e, SpeakerNamed)}
    first_named = min((e.media_time for e in meeting_events if isinstance(e, SpeakerNamed)), default=None)
    assert first_named is not None, "no voice of the meeting was named: nothing to check"
    labels = {f.speaker for f in finals_of(meeting_events) if f.speaker} | {
        turn["speaker"] for e in meeting_events if isinstance(e, SpeakerTurns) for turn in e.turns}
    shown = {named.get(label, label) for label in labels}
    before = []  # the tags of the paragraphs said before the first name was given
    for paragraph, (start, said) in zip(paragraphs, expected):
        stamp, _, rest = paragraph.partition(" ")
        assert stamp == f"**{clock(start)}**"
        assert re.sub(r"\*\*[^*]+:\*\* ", "", rest) == said
        tags = re.findall(r"\*\*([^*]+):\*\* ", rest)
        assert tags and set(tags) <= shown, (paragraph, shown)
        before += tags if start < first_named else []
    assert set(before) & set(named.values()), "no paragraph said before a voice was named shows its name"
    twin = final_twin(meeting_events)
    assert twin["action_items"], "the rules found no action item in the meeting: nothing to check"
    for item in twin["action_items"]:
        assert f"- [ ] {item['text']} ({item['owner']}, due {item['due']})" in notes
    for heading, key in (("Decisions", "decisions"), ("Open questions", "open_questions")):
        if twin[key]:
            assert f"## {heading}" in notes and all(f"- {entry}" in notes for entry in twin[key])
    assert all(f"- {person['name']}" in notes for person in twin["people"])


def test_markdown_escapes_what_was_said():
    said = TranscriptFinal(text="Use *stars* and _under_ #1 <b>", start=1.0, end=2.0, utterance=1, utterance_end=True)
    text = render(MarkdownOutput, [said, SessionEnded()])
    assert r"**00:01** Use \*stars\* and \_under\_ \#1 \<b\>" in text
    assert text.startswith("# Meeting notes\n\n## Transcript\n\n")  # no twin, no notes sections
    named = replace(said, speaker="Tom", speaker_name="Tom")
    assert r"**00:01** **Tom:** Use \*stars\*" in render(MarkdownOutput, [named, SessionEnded()])


def test_terminal_view_prints_a_paragraph_per_utterance(meeting_events):
    printed = render(TextOutput, meeting_events, io.StringIO(), live=False).splitlines()
    who = speakers(meeting_events)
    assert all(who)  # speaker labels are on by default: every paragraph names its voice
    assert [line for line in printed if line.startswith("[") and not line.endswith("(revised)")] == [
        f"[{clock(start)}] {speaker}: {said}" for (start, said), speaker in zip(utterances(meeting_events), who)
    ]
    revisions = [e for e in meeting_events if isinstance(e, TranscriptRevised)]
    assert revisions and all(r.speaker for r in revisions)  # a revision takes its utterance's label
    assert [line for line in printed if line.endswith("(revised)")] == [
        f"[{clock(r.start)}] {r.speaker_name or r.speaker}: {' '.join(r.text.split())}  (revised)" for r in revisions
    ]


def test_terminal_view_names_the_speaker_once_the_voice_gave_a_name():
    finals = [
        TranscriptFinal(text="Priya here.", start=0.5, end=1.4, utterance=1, speaker="S2"),
        TranscriptFinal(text="Tests fail.", start=1.5, end=2.4, utterance=1, utterance_end=True, speaker="S1",
                        speaker_name="Priya"),
        TranscriptFinal(text="Fixed.", start=3.0, end=3.5, utterance=2, utterance_end=True),
    ]
    printed = render(TextOutput, [*finals, SessionEnded()], io.StringIO(), live=False).splitlines()
    assert printed[:2] == ["[00:00] Priya: Priya here. Tests fail.", "[00:03] Fixed."]


def test_terminal_live_line_continues_the_utterance_with_the_partial_in_grey(meeting_events):
    # The first partial that follows a final of a still open utterance.
    open_text = ""
    for index, event in enumerate(meeting_events):
        if isinstance(event, TranscriptFinal):
            open_text = "" if event.utterance_end else " ".join([open_text, event.text]).strip()
        elif isinstance(event, TranscriptPartial) and event.text and open_text:
            break
    else:
        pytest.fail("no partial continued an utterance in this run")
    out = io.StringIO()
    view = TextOutput(out, io.StringIO(), live=True)
    for earlier in meeting_events[: index + 1]:
        view(earlier)
    last = out.getvalue().rsplit("\r\033[K", 1)[-1]
    assert last == f"  … {open_text}{DIM} {' '.join(event.text.split())}{PLAIN}"


def test_terminal_view_prints_only_the_answer_of_the_backend_that_took_over():
    out, err = io.StringIO(), io.StringIO()
    view = TextOutput(out, err, live=False)
    for event in [
        AssistantStarted(generation=1, trigger="final", backend="groq", route="primary"),
        AssistantDelta(generation=1, text="Half an ans"),
        AssistantSwitched(generation=1, backend="openai", previous="groq", reason="groq: stream_broken"),
        AssistantDelta(generation=1, text="The whole answer."),
        AssistantDone(generation=1),
    ]:
        view(event)
    assert out.getvalue() == "  assistant ▸ The whole answer.\n"
    assert err.getvalue() == "note: openai took the answer over (groq: stream_broken)\n"


def run_cli(capfd: pytest.CaptureFixture[str], *args: str) -> Ran:
    return run_main(capfd, "run", *args, "--llm", "none", "--asr-model", "tiny.en")


def reference_words() -> list[str]:
    return normalise((SAMPLES / "meeting.txt").read_text(), strip_speakers=True)


@pytest.mark.model
@pytest.mark.slow
def test_cli_writes_subtitles_to_the_file_its_name_asks_for(capfd, tmp_path):
    out = tmp_path / "meeting.srt"
    result = run_cli(capfd, str(SAMPLES / "meeting.wav"), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""  # not a terminal: the file gets the output, stdout nothing
    subtitles = list(srt.parse(out.read_text(encoding="utf-8")))
    check_cue_layout([(s.start, s.end, s.content.split("\n")) for s in subtitles])
    heard = normalise(" ".join(s.content for s in subtitles))
    assert word_error_rate(reference_words(), heard) <= 0.15


@pytest.mark.model
@pytest.mark.slow
def test_cli_prints_notes_with_format_md(capfd, monkeypatch):
    monkeypatch.setenv("STREAMTWIN_TWIN_WITHOUT_LLM", "1")
    result = run_cli(capfd, str(SAMPLES / "meeting.wav"), "--format", "md")
    assert result.returncode == 0, result.stderr
    notes, transcript = result.stdout.split("\n## Transcript\n\n")
    assert notes.startswith("# Meeting notes\n") and "## Action items\n\n- [ ] " in notes
    paragraphs = transcript.strip().split("\n\n")
    assert len(paragraphs) >= 5 and all(re.match(r"^\*\*\d\d:\d\d\*\* \S", p) for p in paragraphs)
    heard = normalise(" ".join(p.split("** ", 1)[1] for p in paragraphs))
    assert word_error_rate(reference_words(), heard) <= 0.15


@pytest.mark.parametrize(
    "args, says",
    [
        (["--out", "notes.docx"], "cannot tell the format"),
        (["--out", "no/such/dir/out.srt"], "cannot write"),
    ],
)
@pytest.mark.model
def test_cli_refuses_an_output_it_cannot_write(capfd, monkeypatch, tmp_path, args, says):
    monkeypatch.chdir(tmp_path)
    result = run_cli(capfd, str(SAMPLES / "meeting.wav"), *args)
    assert result.returncode == 1
    assert says in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
