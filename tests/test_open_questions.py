"""Open questions the rules read: asked and left unanswered, put off, named as open, or a proposal nobody took up.

The grammar is streamtwin/twin/open_phrasings.py (and the outcome reader in streamtwin/twin/outcomes.py); each case
is everyday English in words of its own, not a sentence of the evaluation set.  Decisions: test_outcomes.py.
"""

import pytest

from tests.test_extract import draft_of


def test_an_open_question_announced_with_a_question_word():
    draft = draft_of(
        "One open question is when we hire the second designer.",
        "Another question is whether the office stays open in August.",
    )
    assert draft["open_questions"] == ["we hire the second designer", "the office stays open in August"]


def test_a_question_that_continues_a_list_of_open_questions_is_one_more():
    draft = draft_of(
        "Another open question is whether people would pay for it, or if it should be free with ads.",
        "And should we build it for phones first, or for the web?",
        "We decided one thing already. The first version will only support English.",
        "And is English enough?",  # no open question just before: a question, not an item
    )
    assert draft["open_questions"] == [
        "people would pay for it, or if it should be free with ads",
        "should we build it for phones first, or for the web",
    ]


@pytest.mark.parametrize("said, open_question", [
    ("The budget for the trip is still open.", "The budget for the trip"),
    ("Who runs the stall on Sunday is still up in the air.", "Who runs the stall on Sunday"),
    ("We still need to figure out how to get the van back.", "how to get the van back"),
    ("We don't know yet whether the hall is free in June.", "the hall is free in June"),
    ("We haven't decided where the team lunch will be.", "where the team lunch will be"),
    ("Whether we need a second van remains open.", "Whether we need a second van"),
    ("The start date remains unresolved.", "The start date"),
    ("We still don't know who will cover the night shift.", "who will cover the night shift"),
    ("Nobody knows yet when the parts arrive.", "when the parts arrive"),
    ("It's unclear whether the grant covers travel.", "the grant covers travel"),
    ("We're not sure if the hall has parking.", "the hall has parking"),
    ("It remains to be seen whether the parents will volunteer.", "the parents will volunteer"),
    ("Still no decision on the new uniforms.", "the new uniforms"),
    ("Let's park the question of overtime pay until next month.", "the question of overtime pay"),
    ("We'll come back to the seating plan on Friday.", "the seating plan"),
    ("The landlord will decide about the parking spaces next week.", "the parking spaces"),
    ("We'll decide on the colour scheme later.", "the colour scheme"),
    ("I don't know yet whether the hall is free on Friday.", "the hall is free on Friday"),
    ("I'm not sure if the grant covers the bus.", "the grant covers the bus"),
    ("The venue for the party is still TBD.", "The venue for the party"),
    ("The budget for the trip is on hold until March.", "The budget for the trip"),
    ("We'll have to check with legal whether we can film in the station.", "we can film in the station"),
    ("I need to find out if the hall is free on Sunday.", "the hall is free on Sunday"),
    ("Whether we get the grant depends on the council.", "Whether we get the grant"),
    ("Let's take the parking question offline.", "the parking question"),
    ("The venue hasn't been decided yet.", "The venue"),
    ("The date for the party isn't settled yet.", "The date for the party"),
    ("It's not clear yet who signs the contract.", "who signs the contract"),
    ("Whether we can afford a second server is still an open question.", "Whether we can afford a second server"),
    ("Who pays for the drinks is an open question.", "Who pays for the drinks"),
    ("I don't have an answer yet on the shipping costs.", "the shipping costs"),
    # 2026-12-07: 1 of 10 of a fresh set was read
    ("We still haven't worked out who pays for the van.", "who pays for the van"),
    ("The catering is still a big question mark.", "The catering"),
    ("I'm not sure about the budget for the party yet.", "the budget for the party"),
    ("The date for the move is yet to be decided.", "The date for the move"),
    ("There's still the question of parking.", "parking"),
    ("Let's leave the uniform question for next time.", "the uniform question"),
    ("We haven't got an answer on the insurance.", "the insurance"),
    ("It depends on whether the council says yes.", "whether the council says yes"),
])

def test_everyday_ways_of_leaving_a_question_open(said, open_question):
    assert draft_of(said)["open_questions"] == [open_question]


@pytest.mark.parametrize("asked, put_off", [
    ("How do we split the cost?", "That's still undecided."),
    ("Do we rent or buy the scaffolding?", "Let's revisit that next week."),
    ("Who takes the Saturday rota?", "We will come back to this question next week."),
    ("Did we agree on the caterer?", "Not yet, nothing is decided."),
    ("Are we closing the shop on Boxing Day?", "That's not decided yet."),
    ("Who is paying for the new fence?", "No idea, honestly."),
    ("Where do we store the chairs after the fair?", "I don't know yet."),
    ("So how will the volunteers get to the site?", "Hmm, not sure."),
    ("Should we invite the neighbours as well?", "Hard to say."),
    ("Who pays for the skip?", "Let's take that offline."),
    ("Who's going to own the migration?", "Nobody's sure yet."),
    ("Do we need a lawyer for this?", "Good question, I don't know."),
    ("Who's going to chair the next meeting?", "Good question, let's see."),
])

def test_a_question_put_off_by_pointing_back_is_the_question_before(asked, put_off):
    assert draft_of(asked, put_off)["open_questions"] == [asked]


@pytest.mark.parametrize("asked, reply", [
    # 2026-12-07 (second sitting): a reply that says it does not know, or will not settle it, among other words.
    ("Who's covering the front desk over Christmas?", "Good point, and I honestly don't know yet."),
    ("Does the deposit come back to us or to the school?", "No idea, to be honest, nobody has told us."),
    ("Are we keeping the Saturday opening hours?",
     "We're not going to settle that today, not without the sales figures."),
    ("Should we switch to the cheaper courier?",
     "Maybe, but I don't want to commit to that yet, we need a trial first."),
    ("What do we do about the leaking gutter?", "Not sure, let's park it until the landlord replies."),
    ("Do you know if the grant covers travel?", "I really don't know, the funder hasn't said."),
    ("Will the hall have heating by then?", "I haven't heard anything from the council."),
    ("Is the new printer coming this month?", "Nobody has given us a date, sadly."),
])

def test_a_reply_that_does_not_know_leaves_the_question_before_open(asked, reply):
    assert draft_of(asked, reply)["open_questions"] == [asked]


@pytest.mark.parametrize("said, open_question", [
    ("One thing nobody has decided is who signs off the budget.", "who signs off the budget"),
    ("The question nobody has answered yet is where the extra chairs come from.", "where the extra chairs come from"),
])

def test_a_question_nobody_has_answered_is_open(said, open_question):
    assert draft_of(said)["open_questions"] == [open_question]


@pytest.mark.parametrize("said", [
    "We will come back to this question next week.", "Let's park the van behind the school.",
    "I'm not sure I follow.", "The order is pending delivery.", "Let's take the van to the depot.",
])

def test_a_pointer_with_nothing_before_it_or_a_plain_errand_leaves_nothing_open(said):
    assert draft_of(said)["open_questions"] == []


@pytest.mark.parametrize("asked, reply", [
    ("Who is paying for the new fence?", "The council is."),
    ("Do you want a tea?", "I don't know, maybe later."),  # asked of one person, about themselves
    ("Assistant, who is paying for the fence?", "No idea."),
    ("Who is paying for the new fence?", "I don't know him very well."),
    ("Who's bringing the cake?", "Me, and I don't know why I volunteered."),
    ("Can you send me the floor plan?", "Not sure, I'll have a look."),
])

def test_a_question_answered_or_asked_of_one_person_is_not_left_open(asked, reply):
    assert draft_of(asked, reply)["open_questions"] == []


@pytest.mark.parametrize("asked, reply", [
    ("Which printer are we buying?", "Still up in the air."),
    ("When's the sports day?", "Still TBC, the field might be flooded."),
    ("And the budget for the new kiln?", "That's above my pay grade."),
    ("Where's the leaving do?", "Nobody's decided that yet."),
    ("Do we let the volunteers use the minibus?", "Hmm. Let me get back to you on that one."),
    ("The new storeroom, who's in charge of the keys?", "I'm not sure anyone is, to be honest."),
    ("Can we afford another teaching assistant?", "That depends on the spring intake."),
    ("How many chairs do we need?", "Depends who turns up."),
    ("Flat fee or hourly for the new client?", "That's the million-dollar question."),
    ("Are we open on Boxing Day?", "The owner hasn't said."),
    ("What about the parking for the fair?", "We're waiting to hear back from the council."),
    ("Should the choir tour be open to parents?", "I can see both sides of that."),
    ("Do we renew the photocopier lease?", "We'll have to think about it."),
    ("Can we sign the lease this week?", "I'd hold off until the survey is back."),
    # 2026-12-07 (fourth sitting): not knowing said short, the other option as a bare "Or ...?", someone else's call
    ("Or do we just paint the fence ourselves?", "Dunno. Depends on the weather, really."),
    ("Should we get the boiler replaced before winter?", "Maybe. Not this week anyway."),
    ("When is the fire inspector coming round?", "Could be Tuesday, could be next month, they never say."),
    ("Are we still getting the new tills in March?", "I genuinely don't know."),
    ("Do we open on the bank holiday Monday?", "That's above me, head office decide that."),
    ("Are we still doing the summer fair?", "I want to, but the head hasn't signed it off."),
    ("What about new signs for the car park?", "That's Maria's call, and she's off till Monday."),
])

def test_a_reply_that_settles_nothing_leaves_the_question_open(asked, reply):
    assert draft_of(asked, reply)["open_questions"] == [asked]


def test_a_proposal_nobody_agrees_on_is_left_open():
    assert draft_of("I think we should close on Mondays.", "That would lose us the market crowd.",
                    "Well, we're not going to agree on that today.")["open_questions"] == ["close on Mondays"]


@pytest.mark.parametrize("said, open_question", [
    ("Who pays for the skip, we never really settled that.", "Who pays for the skip"),
    ("The new minibus, I think we park that one until the spring.", "The new minibus"),
    ("Whether the insurance covers volunteers is a bit of a grey area.", "Whether the insurance covers volunteers"),
])

def test_a_matter_said_first_and_left_open_in_the_same_breath(said, open_question):
    assert draft_of(said)["open_questions"] == [open_question]


@pytest.mark.parametrize("asked, reply", [
    ("Where's Tom?", "He's waiting for the bus."), ("Who won the match?", "No one knows how, but we did."),
])

def test_a_question_answered_is_not_left_open_by_words_of_doubt(asked, reply):
    assert draft_of(asked, reply)["open_questions"] == []


def test_an_open_question_named_with_whether_is_that_one_not_the_question_asked_before():
    assert draft_of("How much would the new shelves cost?", "About forty pounds each.",
                    "So it's still an open question whether the grant pays for them.")["open_questions"] == [
        "the grant pays for them"]


def test_a_reply_that_does_not_know_answers_the_newest_matter_not_an_older_proposal():
    assert draft_of("Is the new form ready for parents?", "Not yet. Keep it off the website until Friday.",
                    "One thing nobody has answered is who prints the paper copies.",
                    "Good point, and I honestly don't know.")["open_questions"] == ["who prints the paper copies"]


@pytest.mark.parametrize("asked, reply", [
    ("What's your gut feeling, Ana?", "Genuinely don't know."),  # one person's view, not a matter left open
    ("Do you want a tea?", "Maybe."),
])

def test_not_knowing_ones_own_view_leaves_nothing_open(asked, reply):
    assert draft_of(asked, reply)["open_questions"] == []


def test_waiting_on_someone_for_ones_own_work_leaves_nothing_open():
    assert draft_of("Sanjay, how's the boiler job going?", "I'm waiting for the parts, so I'm a bit stuck.")[
        "open_questions"] == []
