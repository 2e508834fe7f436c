"""Client messages as plain data: every malformed input is a Refusal, never another exception."""

from __future__ import annotations

import json

import pytest

from streamtwin.service.protocol import (
    MAX_DEPTH,
    MAX_SDP_BYTES,
    Refusal,
    offer_sdp,
    parse_client_message,
    parse_hello,
    parse_rename,
    valid_session_id,
)

GOOD_SDP = (
    "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=fingerprint:sha-256 AB:CD\r\n"
    "a=ice-ufrag:u\r\na=ice-pwd:p\r\n"
)


def refused(call, *args) -> Refusal:
    with pytest.raises(Refusal) as caught:
        call(*args)
    return caught.value


def test_client_messages_are_parsed_strictly():
    assert parse_client_message('{"type": "end"}') == {"type": "end"}
    for raw, code in [
        ("{", "bad_json"),
        ("[1, 2]", "bad_message"),
        ('{"type": 3}', "bad_message"),
        ('{"type": "dance"}', "unknown_type"),
        (b"\x00\x01", "bad_message"),
    ]:
        assert refused(parse_client_message, raw).code == code, raw


@pytest.mark.parametrize(
    "raw",
    [
        "[" * 1000 + "]" * 1000,  # RecursionError inside json on eeb9b39
        '{"type": "hello", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"type": "hello", "n": ' + "9" * 4301 + "}",  # ValueError: integer string too long
        "9" * 5000,
        '{"type": "hello", "options": ' + '{"a": ' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1) + "}",
    ],
    ids=["brackets", "deep-field", "long-int", "long-top-int", "over-cap"],
)
def test_deep_nesting_and_huge_numbers_are_bad_json(raw):
    assert refused(parse_client_message, raw).code == "bad_json"


def test_nesting_up_to_the_cap_is_fine():
    options = 1
    for _ in range(MAX_DEPTH - 2):
        options = {"a": options}
    assert parse_client_message(json.dumps({"type": "hello", "options": options}))["type"] == "hello"


@pytest.mark.parametrize("raw", ['{"type": "hello", "options": {"source": "cam\\ud800"}}', '{"type": "\\udfff"}',
                                 '{"type": "hello", "\\ud800": 1}'])
def test_lone_surrogates_are_refused(raw):
    assert refused(parse_client_message, raw).code == "bad_message"


def test_session_ids_are_matched_whole():
    assert valid_session_id("abc-DEF_09")
    for bad in ("abc\n", "", "a" * 65, "../etc", "a b", 7, None, "é"):
        assert not valid_session_id(bad), bad
    assert refused(parse_hello, {"type": "hello", "role": "viewer", "session": "abc\n"}).code == "bad_hello"


def test_hello_fields_are_typed():
    hello = parse_hello({"type": "hello", "role": "publisher", "options": {"source": "x" * 500}})
    assert (hello.role, hello.session, hello.token, hello.resume) == ("publisher", None, "", "")
    assert len(hello.source) == 200 and hello.snapshot
    assert parse_hello({"role": "viewer", "session": "s", "options": {"snapshot": False}}).snapshot is False
    for message in (
        {"role": "king"},
        {"role": "viewer", "token": 5},
        {"role": "viewer", "token": "t" * 1000},
        {"role": "publisher", "resume": ["x"]},
        {"role": "publisher", "options": "source"},
    ):
        assert refused(parse_hello, message).code == "bad_hello", message


def test_a_hellos_language_is_a_tag_whose_primary_subtag_is_the_hint():
    def language(value):
        return parse_hello({"role": "publisher", "options": {"language": value}}).language

    assert (language("de-AT"), language("EN"), language("en_US"), language("es-419"), language("zh-Hant-TW")) == (
        "de", "en", "en", "es", "zh")
    assert parse_hello({"role": "publisher"}).language == ""
    for bad in ("", "english please", "d", "de-", 7, ["de"], "x" * 300):
        refusal = refused(parse_hello, {"role": "publisher", "options": {"language": bad}})
        assert refusal.code == "bad_hello" and "options.language" in str(refusal), bad


def test_resume_from_is_a_viewers_seq():
    assert parse_hello({"role": "viewer", "session": "s"}).resume_from is None
    assert parse_hello({"role": "viewer", "session": "s", "resume_from": 0}).resume_from == 0
    assert parse_hello({"role": "viewer", "session": "s", "resume_from": 2**63 - 1}).resume_from == 2**63 - 1
    for bad in ("12", -1, True, 1.0, [3], {"seq": 3}, 2**63):
        assert refused(parse_hello, {"role": "viewer", "session": "s", "resume_from": bad}).code == "bad_hello", bad
    assert refused(parse_hello, {"role": "publisher", "resume_from": 3}).code == "bad_hello"


def test_offers_are_checked_before_aiortc_sees_them():
    assert offer_sdp({"sdp": GOOD_SDP}) == GOOD_SDP
    assert refused(offer_sdp, {"sdp": 42}).code == "bad_message"
    assert refused(offer_sdp, {"sdp": " "}).code == "bad_message"
    no_fingerprint = GOOD_SDP.replace("a=fingerprint:sha-256 AB:CD\r\n", "")
    assert refused(offer_sdp, {"sdp": no_fingerprint}).code == "bad_sdp"
    assert refused(offer_sdp, {"sdp": GOOD_SDP + "a=x\r\n" * MAX_SDP_BYTES}).code == "bad_sdp"


def test_a_rename_names_a_voice_label_with_a_clean_name():
    message = parse_client_message('{"type": "rename", "speaker": "S2", "name": "  Alice   Smith "}')
    assert parse_rename(message) == ("S2", "Alice Smith")


@pytest.mark.parametrize("message", [
    {"type": "rename", "speaker": "S2", "name": ""},
    {"type": "rename", "speaker": "S2", "name": "   "},
    {"type": "rename", "speaker": "S2", "name": "x" * 200},
    {"type": "rename", "speaker": "S2", "name": 7},
    {"type": "rename", "speaker": "Tom", "name": "Alice"},  # a room's participants keep their names
    {"type": "rename", "speaker": "S0", "name": "Alice"},
    {"type": "rename", "name": "Alice"},
])
def test_a_rename_to_no_name_or_a_long_one_or_of_no_label_is_refused(message):
    with pytest.raises(Refusal) as refused:
        parse_rename(message)
    assert refused.value.code == "bad_rename" and refused.value.close is None
