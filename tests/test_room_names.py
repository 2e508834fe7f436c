"""Look-alike names in a room (issue 38): compared by their NFKC form and a confusables skeleton.

The reproduction: "Tom" written with a Cyrillic о, or in full-width letters, joined a room beside the
real Tom, and the transcript then showed two Toms.
"""

from __future__ import annotations

import pytest

from streamtwin.rooms.lookalikes import read_alike
from streamtwin.rooms.roster import Roster, RosterError, clean_name
from tests.live import hello, open_ws

IMPOSTORS = [
    "T\u043em",  # Cyrillic о
    "\uff34\uff4f\uff4d",  # full-width Ｔｏｍ
    "\u0422\u043e\u043c",  # Cyrillic Т, о, м
    "\u0422\u041e\u041c",  # Cyrillic capitals: ТОМ
    "T0m",
    "\U0001d413\U0001d428\U0001d426",  # mathematical bold 𝐓𝐨𝐦
    "TOM",
    "T\u03bfm",  # Greek omicron
]


@pytest.mark.parametrize("impostor", IMPOSTORS)
def test_a_name_that_reads_as_one_in_the_room_is_taken(impostor):
    roster = Roster()
    roster.join("Tom", 0.0)
    with pytest.raises(RosterError) as taken:
        roster.join(impostor, 1.0)
    assert taken.value.code == "name_taken"


def test_names_that_only_look_related_stay_apart():
    assert read_alike("Alex", "A1ex") and read_alike("Ian", "lan") and read_alike("Mia", "rnia")
    for first, second in [("Ian", "Lan"), ("José", "Jose"), ("Tom", "Tim"), ("Ann", "Anne"), ("Nick", "vick")]:
        assert not read_alike(first, second), (first, second)
    assert read_alike("Νick", "Nick") and read_alike("νick", "vick")  # Greek capital and small nu
    roster = Roster()
    for name in ("Tom", "Tim", "Ann", "Anne", "José", "Jose"):
        roster.join(name, 0.0)


def test_a_voice_label_in_another_form_is_still_a_voice_label():
    for label in ("\uff33\uff12", "\u04052"):  # full-width Ｓ２, Cyrillic Ѕ then 2
        with pytest.raises(RosterError):
            clean_name(label)


async def test_a_look_alike_cannot_join_beside_the_real_one(make_server):
    server = await make_server(max_sessions=3)
    host = await open_ws(server)
    welcome = await hello(host, "publisher", options={"name": "Tom"})
    impostor = await open_ws(server)
    reply = await hello(impostor, "publisher", session=welcome["session"], token=welcome["join_token"],
                        options={"name": "T\u043em"})
    assert reply["code"] == "name_taken"  # the old main: a second Tom in the room
    await host.close()
