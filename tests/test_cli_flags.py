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
