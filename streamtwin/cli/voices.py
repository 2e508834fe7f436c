"""``streamtwin voices save``: named voice profiles from a past session, for ``--voices DIR``.

The recording runs through the same pipeline as ``run`` (voice labels on, no LLM, no video, as fast as the machine
allows); each voice that ends the session with a name (it introduced itself, was addressed, ``--participants``, or
``--names S2=Bob``) and 2 s of speech or more is written to DIR as NAME.json (its mean embedding).  The next
session started with ``--voices DIR`` names those voices from their first utterance.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import replace
from pathlib import Path
from typing import Callable

from streamtwin.config import Config

VOICES_EXAMPLES = """\
examples:
  streamtwin voices save meeting.wav voices/                  every voice the meeting named
  streamtwin voices save call.wav voices/ --names S1=Ana,S2=Raj   names you give the labels
  streamtwin run next_meeting.wav --voices voices/            known voices named from their first words
"""


def add_voices_parser(commands: argparse._SubParsersAction, speech_flags: Callable[[argparse.ArgumentParser], None],
                      csv: Callable[[str], list[str]]) -> None:
    voices = commands.add_parser("voices", help="named voice profiles for --voices", epilog=VOICES_EXAMPLES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = voices.add_subparsers(dest="voices_command", required=True, metavar="ACTION")
    save = actions.add_parser(
        "save", help="save the named voices of a recording as profiles (NAME.json in DIR)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter, epilog=VOICES_EXAMPLES,
    )
    save.add_argument("source", help="a recording of the session (any file run reads)")
    save.add_argument("folder", metavar="DIR", help="where the profiles go (made if missing)")
    save.add_argument("--names", dest="label_names", type=csv, default=[], metavar="S1=NAME,...",
                      help="names for voice labels, over what the session found")
    speech_flags(save)


def voices_command(config: Config, args: argparse.Namespace) -> int:
    """0, or 1 after one line on stderr."""
    try:
        given = dict(_pair(item) for item in args.label_names)
        return asyncio.run(_save(config, args.source, Path(args.folder), given))
    except ValueError as exc:
        print(f"streamtwin: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _pair(item: str) -> tuple[str, str]:
    label, _, name = item.partition("=")
    if not label.strip() or not name.strip():
        raise ValueError(f"--names takes LABEL=NAME pairs (S1=Alice), not {item!r}")
    return label.strip(), name.strip()


async def _save(config: Config, source: str, folder: Path, given: dict[str, str]) -> int:
    from streamtwin.api import build_session
    from streamtwin.media.ingest import IngestError, MediaReader
    from streamtwin.rooms.roster import RosterError, clean_name
    from streamtwin.session import run_reader
    from streamtwin.speakers.profiles import MIN_SPEECH_S, VoiceProfile
    from streamtwin.speech.asr_models import ModelLoadError

    config = replace(config, speakers="voice", llm="none", vision=False)
    try:
        reader = MediaReader(source, realtime=False, video=False)
        session = await build_session(config, source=source, realtime=False)
    except (IngestError, ModelLoadError) as exc:
        raise ValueError(str(exc)) from None
    try:
        await run_reader(session, reader)
    finally:
        reader.close()
    stage = session.speakers
    assert stage is not None  # speakers="voice" refuses to start without the encoder
    folder.mkdir(parents=True, exist_ok=True)
    saved = 0
    for speaker in stage.clusters.speakers:
        try:
            name = clean_name(given.get(speaker.label) or stage.naming.name_of(speaker.label) or " ")
        except RosterError:
            print(f"{speaker.label}: no name (give one with --names {speaker.label}=NAME)", file=sys.stderr)
            continue
        if speaker.total is None or speaker.seconds < MIN_SPEECH_S or "/" in name or name.startswith("."):
            print(f"{speaker.label} ({name}): not saved ({speaker.seconds:.1f} s of speech)", file=sys.stderr)
            continue
        (folder / f"{name}.json").write_text(VoiceProfile(name, speaker.profile, speaker.seconds).to_json())
        print(f"{speaker.label} -> {folder / (name + '.json')} ({speaker.seconds:.1f} s of speech)")
        saved += 1
    if not saved:
        raise ValueError(f"no named voice in {source}: name them with --names S1=NAME,...")
    return 0
