"""Flags become the one Config, as the environment does: parsed in process, no model loaded."""

from __future__ import annotations

from streamtwin.cli.main import build_parser, config_from_args
from streamtwin.config import Config


def test_participants_and_vocabulary_are_lists_from_a_flag_or_the_environment():
    argv = ["run", "talk.wav", "--participants", "Alice, Bob,José", "--vocabulary", "Northwind"]
    args = build_parser().parse_args(argv)
    config = config_from_args(args)
    assert config.participants == ["Alice", "Bob", "José"] and config.vocabulary == ["Northwind"]
    from_env = Config.from_sources({}, {"STREAMTWIN_PARTICIPANTS": "Xin,Ravi", "STREAMTWIN_VOCABULARY": ""})
    assert from_env.participants == ["Xin", "Ravi"] and from_env.vocabulary == []
    assert Config().participants == [] and Config().vocabulary == []


def test_run_hints_the_language_of_its_machine_as_stream_does():
    """`stream` sent its locale as a hint and `run` sent none, so a file run on an English machine waited for
    3 s of speech before its first word could be committed (the first speaker of every conversation in
    bench.speakers: 4 s)."""
    args = build_parser().parse_args(["run", "talk.wav"])
    assert config_from_args(args, {"LANG": "en_GB.UTF-8"}).language_hint == "en_GB"
    assert config_from_args(args, {"LANG": "C.UTF-8"}).language_hint == ""
    assert config_from_args(args, {"LANG": "de_DE.UTF-8", "STREAMTWIN_LANGUAGE_HINT": ""}).language_hint == ""
    given = build_parser().parse_args(["run", "talk.wav", "--language-hint", "de-AT"])
    assert config_from_args(given, {"LANG": "en_GB.UTF-8"}).language_hint == "de-AT"
    assert config_from_args(build_parser().parse_args(["serve"]), {"LANG": "en_GB.UTF-8"}).language_hint == ""


def test_a_language_hint_is_its_primary_subtag_and_nonsense_is_refused():
    import pytest

    from streamtwin.speech.speech_stage import primary_language

    tags = ("en", "de-AT", "de_AT", "PT-br", "", "  ")
    assert [primary_language(t) for t in tags] == ["en", "de", "de", "pt", "", ""]
    with pytest.raises(ValueError, match="language tag"):
        primary_language("english please")
