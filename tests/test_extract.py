"""The rule-based twin draft: explicit phrasings, read from utterances in order."""

import pytest

from streamtwin.twin.extract import RuleExtractor
from streamtwin.twin.due import task_and_due


def draft_of(*utterances: str) -> dict:
    rules = RuleExtractor()
    for utterance in utterances:
        rules.add(utterance)
    return rules.draft()


def test_a_request_to_a_named_person_is_their_item_and_their_yes_refines_it():
    draft = draft_of(
        "Peter, please book the video studio by next Tuesday.",
        "Yes, I will book the video studio by Tuesday.",
    )
    assert draft["action_items"] == [{"text": "book the video studio", "owner": "Peter", "due": "next Tuesday"}]
    assert draft["people"] == [{"name": "Peter"}]


def test_i_will_belongs_to_whoever_has_the_floor_unless_someone_is_thanked_for_it():
    draft = draft_of(
        "Thanks, Tom. Mike, how about you?",
        "I am blocked, because I have no access to the test server.",
        "I will ask the admin team for your access today.",
        "Thank you, Anna. After that I will write the release notes by Friday.",
    )
    assert [(a["owner"], a["text"], a["due"]) for a in draft["action_items"]] == [
        ("Anna", "ask the admin team for your access", "today"),
        ("Mike", "write the release notes", "Friday"),
    ]


def test_a_thanks_said_on_its_own_still_names_who_took_the_task():
    draft = draft_of(
        "Thanks, Tom. Mike, how about you?",
        "I am blocked, because I have no access to the test server.",
        "I will ask the admin team for your access today.",
        "Thank you, Anna.",
        "After that, I will write the release notes by Friday.",
    )
    assert [(a["owner"], a["text"]) for a in draft["action_items"]] == [
        ("Anna", "ask the admin team for your access"),
        ("Mike", "write the release notes"),
    ]


def test_spoken_corrections_change_the_due_date_and_the_owner():
    draft = draft_of(
        "Steve, please order the moving boxes by Thursday.",
        "No, Friday, not Thursday. The supplier is closed on Thursday.",
        "Paul, you will rent the truck for the twelfth of May.",
        "Sorry, a correction: the move is on the nineteenth of May, not the twelfth.",
        "I will hire a cleaning company. Actually, no, Steve will do that, because he knows the building manager.",
        "Fine, I will hire the cleaning company by next Monday.",
    )
    assert [(a["owner"], a["text"], a["due"]) for a in draft["action_items"]] == [
        ("Steve", "order the moving boxes", "Friday"),
        ("Paul", "rent the truck", "nineteenth of May"),
        ("Steve", "hire a cleaning company", "next Monday"),
    ]


def test_nobody_is_invented_and_a_task_with_no_named_owner_stays_unassigned():
    draft = draft_of(
        "Good afternoon.", "For next week, everyone please read chapter five.", "Impressive.", "please send it."
    )
    assert draft["people"] == []
    assert draft["action_items"] == [{"text": "read chapter five", "owner": "unassigned", "due": "next week"}]


@pytest.mark.parametrize("opening", ["Honestly", "Perfect", "Oh", "Otherwise", "Quickly", "Sir", "Mate", "Marketing"])
def test_a_word_of_conversation_before_a_request_is_nobody(opening):
    """A sound, a verdict, an adverb, a role or a team said first is no person, so no owner."""
    draft = draft_of(f"{opening}, can you send the report by Friday?", f"{opening}, please update the rota.")
    assert draft["people"] == []
    assert all(item["owner"] == "unassigned" for item in draft["action_items"])  # as after "Okay, please ..."


def test_an_exclamation_or_nobody_is_no_person_and_an_opening_sound_hides_no_task():
    assert draft_of("Jesus, the server is down again.", "Nobody will call the client.") == {
        "people": [], "action_items": [], "decisions": [], "open_questions": []}
    assert draft_of("Yesterday, I fixed the printer.", "Agree, we should go.", "Mrs, can you help?")["people"] == []
    assert draft_of("Mrs Patel, please sign the form.")["action_items"] == [
        {"text": "sign the form", "owner": "Mrs Patel", "due": ""}]
    assert draft_of("Oh, and Dana will order lunch.")["action_items"] == [
        {"text": "order lunch", "owner": "Dana", "due": ""}]


@pytest.mark.parametrize("name", ["Emily", "Kelly", "Stanley", "Ashley", "Holly", "Charly"])
def test_given_names_shaped_like_adverbs_are_still_people(name):
    draft = draft_of(f"{name}, can you send the report by Friday?")
    assert draft["action_items"] == [{"text": "send the report", "owner": name, "due": "Friday"}]


def test_a_name_said_on_its_own_owns_the_request_that_follows():
    draft = draft_of("nice!", "Chris?", "please check my Friday if the name fridge chef is free.")
    assert draft["action_items"] == [
        {"text": "check my if the name fridge chef is free", "owner": "Chris", "due": "Friday"}
    ]


def test_i_will_belongs_to_the_voice_that_said_it_when_speakers_are_labelled():
    rules = RuleExtractor()
    rules.add("Good morning, this is Dan speaking.", "Dan")
    rules.add("I will fix the failing tests by Wednesday.", "Tom")
    rules.add("I will write the store listing tomorrow morning.", "S2")
    rules.add("Okay. I will make the pictures on Friday.")  # no label: nobody had the floor
    owners = {item["text"]: item["owner"] for item in rules.draft()["action_items"]}
    assert owners == {
        "fix the failing tests": "Tom",
        "write the store listing": "unassigned",  # S2's: a label is no person, until the voice says its name
        "make the pictures": "unassigned",
    }
    rules.rename("S2", "Priya")  # the voice S2 said "Priya here" later
    assert {i["owner"] for i in rules.draft()["action_items"]} == {"Tom", "Priya", "unassigned"}


def test_a_named_voice_saying_yes_to_a_task_given_to_someone_else_leaves_it_theirs():
    rules = RuleExtractor()  # measured: the interview's two voices got one label, "Rachel"
    rules.add("I will send you the coding test tomorrow. David, please return it within one week.", "Rachel")
    rules.add("Great, I will return the coding test within a week.", "Rachel")
    rules.add("I will book the meeting room.", "Rachel")  # her own task: hers
    owners = {item["text"]: item["owner"] for item in rules.draft()["action_items"]}
    # and the yes says what "it" was
    assert owners == {"send you the coding test": "Rachel", "return the coding test": "David",
                      "book the meeting room": "Rachel"}


def test_an_unnamed_voice_yields_to_the_person_given_the_floor():
    rules = RuleExtractor()
    rules.add("Good morning. Tom, you go first.", "S1")
    rules.add("I will fix the password reset bug by Wednesday.", "S2")  # a voice, not a name: Tom had the floor
    assert [(i["text"], i["owner"]) for i in rules.draft()["action_items"]] == [("fix the password reset bug", "Tom")]


def test_an_arrival_said_after_the_task_is_its_due_date():
    draft = draft_of("I will ship you the spare parts. and it will arrive on Monday.")
    assert [(a["text"], a["due"]) for a in draft["action_items"]] == [("ship you the spare parts", "Monday")]


def test_an_unnamed_voice_that_answers_a_call_is_that_person_from_then_on():
    rules = RuleExtractor()
    rules.add("Morning all. Priya. You go first.", "S1")
    rules.add("I will finish the export screen by Thursday.", "S2")  # the voice that took the floor: Priya
    rules.add("Now, the budget. Leo, can you check the invoices?", "S1")
    rules.add("Sure, I will check the invoices today.", "S3")  # said yes to Leo's request: this voice is Leo
    rules.add("I will also update the roadmap.", "S2")  # Priya again
    rules.add("I will send the minutes.", "S4")  # a voice nobody called: no guess
    owners = [(i["text"], i["owner"]) for i in rules.draft()["action_items"]]
    assert owners == [
        ("finish the export screen", "Priya"),
        ("check the invoices", "Leo"),
        ("update the roadmap", "Priya"),  # not "also update ..."
        ("send the minutes", "unassigned"),
    ]
    assert [p["name"] for p in rules.draft()["people"]] == ["Priya", "Leo"]


def test_a_name_a_voice_was_only_guessed_to_have_never_overrides_a_task_given_by_name():
    rules = RuleExtractor()
    rules.add("Let's start. Omar? Are you there?", "S1")  # "Omar?": S2 speaks next, so S2 is taken for Omar
    rules.add("Yes. I am here.", "S2")
    rules.add("I will book the rooms. Actually, no, Lena will do that.", "S1")
    rules.add("Fine, I will book the rooms by Monday.", "S2")  # Lena's voice after all: the guess gives way
    assert [(i["text"], i["owner"], i["due"]) for i in rules.draft()["action_items"]] == [
        ("book the rooms", "Lena", "Monday")
    ]


def test_the_voice_that_answers_a_question_put_to_a_titled_name_is_theirs():
    rules = RuleExtractor()
    for text, voice in [
        ("For next week, everyone please read chapter 5. The quiz is on Monday.", "S1"),
        ("Professor Hill is the Calvin cycle also on the quiz?", "S2"),  # the comma was not heard
        ("Yes, Nina, the Calvin cycle will be on the quiz.", "S1"),
        ("Can we use our notes during the quiz?", "S3"),
        ("No notes, Omar, but I will post the slides online tonight.", "S1"),
    ]:
        rules.add(text, voice)
    assert [(a["owner"], a["text"]) for a in rules.draft()["action_items"]] == [
        ("unassigned", "read chapter 5"), ("Professor Hill", "post the slides online"),
    ]
    assert rules.voice_name("S1") == "Professor Hill"


def test_a_task_asked_of_nobody_named_remembers_who_asked_for_it():
    # Measured (brainstorm, Whisper base): "Ben, can you draw ..." was heard without "Ben".
    rules = RuleExtractor()
    rules.add("Nice. Chris, please check by Friday if the name Fridge Chef is free.", "S1")
    rules.add("Okay, I will check the name by Friday. Then, can you draw some screen sketches by next Wednesday?", "S3")
    rules.add("Sure, I will draw the sketches by Wednesday.", "S2")
    assert rules.voice_name("S3") == "Chris"
    assert rules.requests() == [("draw some screen sketches", "Chris")]
    assert [(a["owner"], a["text"]) for a in rules.draft()["action_items"]] == [
        ("Chris", "check if the name Fridge Chef is free"), ("unassigned", "draw the sketches")]


def test_a_task_taken_by_someone_known_only_by_their_role_is_an_unassigned_item():
    # Measured (support, Whisper base): "My manager, Daniel, will decide ..." heard without "Daniel"; the twin lost
    # the refund, and with it the action-items answer.
    draft = draft_of(
        "I cannot promise now. My manager and you will decide about the refund and call you back tomorrow.",
        "He knows the building manager. The manager will be happy.",
    )
    assert draft["action_items"] == [
        {"text": "decide about the refund and call you back", "owner": "unassigned", "due": "tomorrow"}]
    rules = RuleExtractor()
    rules.add("My manager said I will handle the invoices.", "Tom")  # "I will": the speaker's
    assert [(a["owner"], a["text"]) for a in rules.draft()["action_items"]] == [("Tom", "handle the invoices")]
    named = draft_of("My manager, Daniel, will decide about the refund and call you back tomorrow.")
    assert [(a["owner"], a["text"]) for a in named["action_items"]] == [
        ("Daniel", "decide about the refund and call you back")]


def test_a_task_asked_of_everyone_is_not_the_askers():
    # Measured (lecture, Qwen): "everyone please read chapter five" shown as Professor Hill's task.
    rules = RuleExtractor()
    rules.add("Professor Hill, is the Calvin cycle also on the quiz?", "S2")
    rules.add("Yes, the Calvin cycle will be on the quiz. For next week, everyone please read chapter five.", "S1")
    assert rules.voice_name("S1") == "Professor Hill"
    assert rules.requests() == [("read chapter five", "Professor Hill")]


# --- everyday phrasings (written apart from the evaluation set: general grammar, not its sentences) ---------


def owners_of(*utterances: str | tuple[str, str]) -> list[tuple[str, str, str]]:
    rules = RuleExtractor()
    for utterance in utterances:
        speaker, text = utterance if isinstance(utterance, tuple) else ("", utterance)
        rules.add(text, speaker)
    return [(a["owner"], a["text"], a["due"]) for a in rules.draft()["action_items"]]


def test_requests_said_many_ways_name_their_owner():
    assert owners_of("Action item for Kim: renew the parking permits.") == [("Kim", "renew the parking permits", "")]
    assert owners_of("Lee to update the budget by Q3.") == [("Lee", "update the budget", "Q3")]
    assert owners_of("Let's have Ana own the rollout.") == [("Ana", "own the rollout", "")]
    assert owners_of("Can you send me the contract by Monday, Ravi?") == [("Ravi", "send me the contract", "Monday")]
    assert owners_of("José, I'd like you to draft the press release.") == [("José", "draft the press release", "")]
    assert owners_of("Okay. Xin, could you look into the login errors before Friday?") == [
        ("Xin", "look into the login errors", "Friday")
    ]
    assert owners_of("Siobhan, fix the rota this afternoon, please.") == [("Siobhan", "fix the rota", "this afternoon")]
    assert owners_of("Tom, great point.", "Anna, the results are in.", "Mike, welcome to the team.") == []


@pytest.mark.parametrize("said, owned", [
    # Everyday ways the grammar did not read (2026-12-06: 9 of 25 missed, 3 of 15 remarks taken for tasks)
    ((("Ana", "I'll need you to check the fire exits, Carla."),), [("Carla", "check the fire exits", "")]),
    ((("Ana", "Someone needs to write up the minutes."), ("Carla", "I'll take it.")),
     [("Carla", "write up the minutes", "")]),
    ((("Ana", "Let me look into the refund."),), [("Ana", "look into the refund", "")]),
    ((("Ana", "Eli, you're in charge of the raffle."),), [("Eli", "in charge of the raffle", "")]),
    ((("Ana", "Carla is responsible for the press release."),), [("Carla", "responsible for the press release", "")]),
    ((("Ana", "Can Eli book the van for Saturday?"),), [("Eli", "book the van", "Saturday")]),
    ((("Ana", "Next step: Dev sends the survey to all parents."),), [("Dev", "sends the survey to all parents", "")]),
    ((("Ana", "Ben's going to clean up the backlog by Friday."),), [("Ben", "clean up the backlog", "Friday")]),
    ((("Ana", "My job is to collect the forms by Thursday."),), [("Ana", "collect the forms", "Thursday")]),
    ((("Ana", "I'm in charge of the seating plan."),), [("Ana", "in charge of the seating plan", "")]),
    # remarks, not tasks
    ((("Ana", "I'll be honest with you."), ("Ana", "I'll be back in five minutes."), ("Ana", "I'll try.")), []),
    ((("Ana", "Can Eli come to the party?"), ("Ana", "Ben's going to be late."), ("Ana", "Let me think about it."),
      ("Ana", "Let me share my screen.")), []),
])
def test_more_everyday_ways_of_giving_and_taking_a_task(said, owned):
    assert owners_of(*said) == owned


def test_a_volunteer_for_what_was_asked_of_anyone_owns_it_and_the_asker_does_not():
    assert owners_of(("Ana", "Can someone call the plumber?"), ("Ben", "I'll do it.")) == [
        ("Ben", "call the plumber", "")
    ]
    assert owners_of(("Ana", "Can anyone check the fire alarm?"), ("Ana", "I can do that.")) == []


@pytest.mark.parametrize("asked, offered, task", [
    ("Who wants to take the minutes today?", "I can take them.", "take the minutes"),
    ("Could somebody check the fridge temperature?", "On it.", "check the fridge temperature"),
    ("We need someone to greet the visitors at nine.", "Happy to do that.", "greet the visitors at nine"),
    ("Is anyone free to cover reception on Friday?", "Yeah, I'm free, I'll cover it.", "cover reception"),
    ("Who's going to call the plumber?", "Leave it with me.", "call the plumber"),
    ("Can one of you print the handouts?", "Sure, I'll print them.", "print the handouts"),
    ("I need a volunteer to run the raffle.", "Count me in.", "run the raffle"),
])
def test_a_volunteer_said_in_everyday_words_owns_what_was_asked_of_anyone(asked, offered, task):
    assert [(owner, text) for owner, text, _ in owners_of(("Ana", asked), ("Ben", offered))] == [("Ben", task)]


@pytest.mark.parametrize("given, restated, owner", [
    ("Ben, can you order the paint?", "Actually, scratch that, Carla is ordering the paint.", "Carla"),
    ("Carla will draft the agenda.", "Change of plan: Dev drafts the agenda.", "Dev"),
    ("Dev, please collect the keys.", "On second thought, Ben, you collect the keys.", "Ben"),
])
def test_a_task_said_again_with_someone_else_doing_it_moves_to_them(given, restated, owner):
    assert [o for o, _, _ in owners_of(("Ana", given), ("Ana", restated))] == [owner]


def test_a_report_of_a_task_done_or_a_reminder_moves_no_task():
    assert owners_of(("Ana", "Carla, please send the invoice."), ("Ana", "Ben sent the invoice yesterday.")) == [
        ("Carla", "send the invoice", "")]
    assert owners_of("Tom, please book the bus.", "Don't book the bus yet.")[0][0] == "Tom"


@pytest.mark.parametrize("said, owner, task", [
    ("It would be great if you could send the slides, Ben.", "Ben", "send the slides"),
    ("Carla, would it be possible to call the supplier tomorrow?", "Carla", "call the supplier"),
    ("Dev, I was hoping you could look at the heater.", "Dev", "look at the heater"),
    ("Ben, any chance you could water the plants this week?", "Ben", "water the plants"),
    ("Eli, do you mind sweeping the yard before you go?", "Eli", "sweeping the yard before you go"),
    ("Ben, the invoice still needs sending.", "Ben", "sending the invoice"),
    ("Eli, the fence needs fixing by Saturday, can you handle that?", "Eli", "fixing the fence"),
])
def test_a_request_put_indirectly_is_still_theirs(said, owner, task):
    assert [(o, t) for o, t, _ in owners_of(("Ana", said))] == [(owner, task)]


@pytest.mark.parametrize("said", [
    "Ideally, Ben, repaint the fence.", "Otherwise, Ben, you'd have to repaint the fence.",
    "Hypothetically, Ben, can you repaint the fence?", "Eventually, Ben, you'll need to repaint the fence.",
    "Ideally, Ben will repaint the fence.", "Ideally, please repaint the fence, Ben.",
    "In an ideal world, Ben, you would repaint the fence.",
])
def test_a_task_said_after_a_hedge_is_only_imagined(said):
    assert owners_of(("Ana", said)) == []


@pytest.mark.parametrize("said, task", [
    ("Ben, you might want to check the heater.", "check the heater"),
    ("Ben, if you could check the heater, that'd be great.", "check the heater"),
    ("Ben, you should check the heater.", "check the heater"),
    ("Ben, perhaps you could check the heater tomorrow.", "check the heater"),
    ("Ben, it might be worth checking the heater.", "checking the heater"),
    ("Ben, would you be so kind as to check the heater?", "check the heater"),
    ("Ben, would you mind checking the heater?", "checking the heater"),
    ("Maybe Ben could look at the heater?", "look at the heater"),
    ("Ben might want to check the heater.", "check the heater"),
    ("I think Ben should check the heater.", "check the heater"),
    ("I'll leave the heater with you, Ben.", "the heater"),
    ("Ben, can I leave the heater with you?", "the heater"),
    ("The heater's yours, Ben.", "The heater"),
])
def test_a_request_put_as_advice_or_handed_over_is_theirs(said, task):
    assert [(o, t) for o, t, _ in owners_of(("Ana", said))] == [("Ben", task)]


@pytest.mark.parametrize("said", [
    "Ben, you might want to sit down.", "Maybe Ben could join us next time?", "Ben, you should see the view.",
    "I think Ben should be proud.",
])
def test_advice_for_the_moment_or_a_wish_is_no_task(said):
    assert owners_of(("Ana", said)) == []


def test_asking_leave_for_oneself_is_no_task():
    assert owners_of(("Ana", "Carla, do you mind if I open the window?")) == []


@pytest.mark.parametrize("said, task", [
    ("Leave the catering to me.", "the catering"),
    ("I've got the catering covered.", "the catering"),
    ("I'm happy to write the press release.", "write the press release"),
    ("I'd be happy to call the venue.", "call the venue"),
    ("I plan to finish the audit by Friday.", "finish the audit"),
    ("I'm planning to repaint the hall next week.", "repaint the hall"),
    ("I need to send the invoice today.", "send the invoice"),
    ("I have to renew the insurance this month.", "renew the insurance"),
    ("I'm gonna fix the leak tomorrow.", "fix the leak"),
    ("I'll go ahead and book the flights.", "book the flights"),
    ("I should be able to finish the draft by Monday.", "finish the draft"),
    ("Let me update the wiki after this.", "update the wiki after this"),
    ("I'm taking care of the visas.", "taking care of the visas"),
    ("I volunteer to clean the kitchen.", "clean the kitchen"),
    ("I'll make sure the doors are locked.", "make sure the doors are locked"),
])
def test_a_task_taken_on_in_the_first_person_in_everyday_words_is_the_speakers(said, task):
    assert [(o, t) for o, t, _ in owners_of(("Ben", said))] == [("Ben", task)]


@pytest.mark.parametrize("said", [
    "I need to leave early today.", "I have to say, that went well.", "I'm gonna be honest.", "Let me think about it.",
    "I should be able to make it.", "I'd be happy to help if needed.", "I have to go now.", "Let me see.",
    "I'm planning to be there.", "I'm happy to be here.", "I'll leave that to you.",
])
def test_a_remark_in_the_first_person_is_no_task(said):
    assert owners_of(("Ben", said)) == []


@pytest.mark.parametrize("said", [
    "We don't need the minibus anymore.", "The minibus is off.", "Hold off on the minibus.", "No need for the minibus now.",
    "Scratch the minibus, we're walking.", "Ben, don't bother with the minibus.", "Let's not book the minibus after all.",
    "The minibus isn't needed any more.",
])
def test_a_task_called_off_in_everyday_words_goes(said):
    assert owners_of(("Ana", "Ben, please book the minibus for Friday."), ("Ana", said)) == []


@pytest.mark.parametrize("said, day", [
    ("Actually, can you do the minibus on Thursday instead?", "Thursday"),
    ("Ben, Wednesday works better for the minibus.", "Wednesday"),
    ("Change of plan, the minibus is for Tuesday now.", "Tuesday"),
])
def test_a_task_moved_to_another_day_in_everyday_words_is_due_then(said, day):
    assert owners_of(("Ana", "Ben, please book the minibus for Friday."), ("Ana", said)) == [
        ("Ben", "book the minibus", day)]


@pytest.mark.parametrize("said", [
    "Let's not forget the minibus.", "We don't need to worry about the minibus.", "No need to rush the minibus.",
    "Don't forget the minibus.",
])
def test_a_reminder_about_a_task_keeps_it(said):
    assert owners_of(("Ana", "Ben, please book the minibus for Friday."), ("Ana", said)) == [
        ("Ben", "book the minibus", "Friday")]


@pytest.mark.parametrize("said, task", [
    ("We need to renew the insurance before March.", "renew the insurance"),
    ("We have to book the hall by Friday.", "book the hall"),
    ("We should email the parents tomorrow.", "email the parents"),
    ("We'll print the flyers on Monday.", "print the flyers"),
])
def test_a_task_of_the_teams_is_nobodys_until_someone_takes_it(said, task):
    assert [(o, t) for o, t, _ in owners_of(("Ana", said))] == [("unassigned", task)]
    assert [(o, t) for o, t, _ in owners_of(("Ana", said), ("Ben", "I'll do it."))] == [("Ben", task)]


@pytest.mark.parametrize("said", [
    "We'll see how it goes.", "We need to talk.", "We'll start with introductions.", "We'll go with the blue one.",
    "We'll take a short break.", "We'll meet again on Friday.", "We need to decide on the venue.",
    "We have to wait for the council.",
])
def test_what_we_will_do_that_makes_nothing_is_no_task(said):
    assert owners_of(("Ana", said)) == []


@pytest.mark.parametrize("said", [
    "Priya is doing the keys.", "Priya takes the keys.", "Priya has the keys covered.", "The keys are with Priya.",
    "Priya, the keys are yours.", "The keys go to Priya.", "Priya offered to collect the keys.",
    "Priya said she'd collect the keys.", "Priya agreed to collect the keys.", "Priya volunteered to collect the keys.",
    "Priya is collecting the keys.", "Priya's on the keys.", "Priya gets the keys from reception.",
    "Priya, you're on keys duty.",
])
def test_a_task_said_of_someone_named_is_theirs(said):
    assert [(owner, "key" in text) for owner, text, _ in owners_of(("Ana", said))] == [("Priya", True)]


@pytest.mark.parametrize("said", [
    "Priya lost the keys yesterday.", "Priya has the keys to the van, I think.", "Priya collected the keys last week.",
    "Did Priya collect the keys?", "Priya always collects the keys.", "Priya is on holiday that week.",
    "Priya's on her way.", "Priya is visiting her mum.", "Priya takes a break.", "Priya is making coffee.",
    "Priya, you're on the right track.", "Priya's on the same page.",
])
def test_what_someone_did_does_or_is_doing_now_is_no_task(said):
    assert owners_of(("Ana", said)) == []


def test_a_task_handed_over_changes_owner_and_a_task_called_off_goes():
    assert owners_of("Ravi, please order the chairs.", "Actually, let Maria take that instead.") == [
        ("Maria", "order the chairs", "")
    ]
    assert owners_of("Zoë, please book the room for Thursday.", "Hand that to Björn.") == [
        ("Björn", "book the room", "Thursday")
    ]
    assert owners_of("Tom, please book the bus.", "Forget the bus, we are walking.") == []
    assert owners_of("Tom, please book the bus.", "Don't forget the bus tickets.") == [("Tom", "book the bus", "")]


def test_what_is_asked_for_the_moment_is_no_task():
    assert owners_of("Sam, can you see my screen?") == []
    assert owners_of("Dana, can you hear me?") == []
    assert owners_of("Could you repeat that, Priya?") == []


def test_a_question_or_a_denial_decides_nothing():
    assert draft_of("Did we decide to launch in May?")["decisions"] == []
    assert draft_of("We have not agreed on the price yet.")["decisions"] == []
    assert draft_of("We agreed to launch in May.")["decisions"] == ["To launch in May"]


def test_common_words_at_a_sentences_start_are_nobody():
    assert owners_of("Back to the agenda.", "Nice to meet you all.", "Time to wrap up by Friday.") == []


def test_a_thanks_or_an_answer_names_the_voice_that_spoke_just_before():
    rules = RuleExtractor()
    rules.add("Good morning, everyone. Let's start.", "S1")
    rules.add("Thanks, Alice. The website is almost ready.", "S2")
    rules.add("Can you check the freezer temperatures?", "S3")
    rules.add("Right away, Mo.", "S2")
    rules.add("I will send the agenda after the meeting.", "S1")
    assert rules.voice_name("S1") == "Alice" and rules.voice_name("S3") == "Mo"
    assert rules.voice_name("S2") == ""  # nobody answered them by name
    assert [(a["owner"], a["text"]) for a in rules.draft()["action_items"]] == [
        ("Alice", "send the agenda after the meeting")
    ]


def test_a_request_right_after_a_thanks_in_the_same_utterance_is_for_the_one_thanked():
    # Whisper often moves the stop: "Thank you. Bob, can you send ...?" comes out "Thank you, Bob. Can you ...?"
    assert owners_of("Thank you, Bob. Can you send the cost report by Friday?") == [
        ("Bob", "send the cost report", "Friday")
    ]
    assert owners_of("Thanks, Tom.", "Can you share the slides?") == []  # another utterance: not said to Tom


def test_a_contracted_denial_decides_nothing_and_minutes_style_names_are_people():
    assert draft_of("We haven't agreed on the venue yet.")["decisions"] == []
    assert draft_of("No, we didn't decide to move the launch.")["decisions"] == []
    from streamtwin.twin.heard import HeardIndex

    heard = HeardIndex.of("Rosa to order fifty inner tubes by tomorrow.\nWelcome to the retro, everyone.")
    assert heard.mentions("Rosa") and not heard.mentions("Welcome")


@pytest.mark.parametrize("said, owned", [
    # Addressed within the utterance, the latest name is who "can you" is asked of.
    ((("Mia", "Thanks, Leo. Noor, the landlord wants the keys back. Can you drop them off on Monday?"),),
     [("Noor", "drop them off", "Monday")]),
    # The order first, the name last.
    (("Book the meeting room for the workshop on Tuesday, Lena.",), [("Lena", "book the meeting room for the workshop",
                                                                      "Tuesday")]),
    # An aside before the order is not the task.
    (("Ana, if you can, please call the caterer today.",), [("Ana", "call the caterer", "today")]),
    (("Tom, before you leave, lock the back door.",), [("Tom", "lock the back door", "")]),
    (("Tom, after lunch, call the supplier about the tiles.",), [("Tom", "call the supplier about the tiles", "")]),
    (("Tom, tomorrow, send the deck to the client.",), [("Tom", "send the deck to the client", "tomorrow")]),
    # "I'll take that one instead" moves the newest task to the speaker.
    ((("Mia", "Sam, please book the van for Friday."), ("Kim", "Actually, I'll take that one instead.")),
     [("Kim", "book the van", "Friday")]),
    # A promise that names only what was just given refines it.
    ((("Mia", "Kim, can you order the new chairs?"), ("Kim", "Sure, I'll have them done by Thursday.")),
     [("Kim", "order the new chairs", "Thursday")]),
])
def test_orders_said_around_the_name_and_taken_back(said, owned):
    assert owners_of(*said) == owned


@pytest.mark.parametrize("said", [
    "Have a good weekend, Tom.", "Great work on the demo, Tom.", "Fair point, Sam.", "Let me check that, Tom.",
    "Nice to meet you, Priya.", "Priya, will the new laptops arrive this week?", "That's all for today, Tom.",
    "Long time no see, Sam.", "Same to you, Sam.", "Straight after lunch, Sam.", "Over to you, Sam.",
    # A word before a comma is no name addressed with an order when it is a number, a verdict before a preposition,
    # or the first item of a list; nor is what follows a name an order when it is a list or a preposition.
    "Fifty, plus delivery.", "Passed, with two against.", "Eggs, flour, the good butter.",
    "Nina, milk, bread and the papers.", "Tom, with the invoice, be careful.", "Ravi, on the left of the stage.",
])
def test_remarks_and_questions_to_a_named_person_give_them_nothing_to_do(said):
    assert owners_of(said) == []


@pytest.mark.parametrize("task, words, due", [
    ("send it by Monday the 3rd", "send it", "Monday the 3rd"),
    ("update the rota by Friday, the 9th of May", "update the rota", "Friday, the 9th of May"),
    ("confirm the coach for Thursday by noon tomorrow", "confirm the coach for Thursday", "noon tomorrow"),
    ("bring the kit for Saturday's match", "bring the kit for Saturday's match", "Saturday"),
    ("finish the slides by the 21st.", "finish the slides", "21st"),
    ("move the printer to the second floor", "move the printer to the second floor", ""),
    ("draft the plan by the second half of the year", "draft the plan by the second half of the year", ""),
    ("renew the insurance this month", "renew the insurance", "this month"),
    ("paint the shed at the weekend", "paint the shed", "the weekend"),
    ("close the books by next quarter", "close the books", "next quarter"),
    ("make sure the backups run tonight", "make sure the backups run", "tonight"),
    ("renew the insurance before March", "renew the insurance", "March"),
    ("file the report by May", "file the report", "May"),
    ("print the March newsletter", "print the March newsletter", ""),
])
def test_a_deadline_said_many_ways_and_a_day_the_task_is_about(task, words, due):
    assert task_and_due(task) == (words, due)


@pytest.mark.parametrize("said, owned", [
    ((("Ann", "Tom, please send the invoice by Monday."), ("Ann", "Actually, make that Thursday.")),
     [("Tom", "send the invoice", "Thursday")]),
    ((("Ann", "Tom, please send the invoice by Monday."), ("Ann", "Let's push the invoice to next week.")),
     [("Tom", "send the invoice", "next week")]),
    ((("Ann", "Tom, please send the invoice by Monday."), ("Ann", "Tom, the invoice can wait until Friday.")),
     [("Tom", "send the invoice", "Friday")]),
    ((("Ann", "Tom, please book the hotel by Friday."), ("Tom", "Will do."),
      ("Ann", "Oh, and the deadline for the hotel moved to Tuesday.")), [("Tom", "book the hotel", "Tuesday")]),
    # Another plan moved is no task's new date, nor is making it somewhere.
    ((("Ann", "Tom, please send the invoice by Monday."), ("Ann", "Let's move the meeting to Thursday.")),
     [("Tom", "send the invoice", "Monday")]),
    ((("Ann", "Tom, please send the invoice by Monday."), ("Bo", "I hope we make it to the coast by Friday.")),
     [("Tom", "send the invoice", "Monday")]),
])
def test_a_later_statement_moves_a_due_date(said, owned):
    assert owners_of(*said) == owned


def test_a_task_turned_down_has_no_owner_until_someone_takes_it():
    asked = ("Ann", "Tom, can you book the hotel for the team?")
    assert owners_of(asked, ("Tom", "Sorry, I can't this week.")) == [("unassigned", "book the hotel for the team", "")]
    assert owners_of(asked, ("Tom", "Sorry, I can't this week. Maybe Lisa could?"), ("Lisa", "Sure, I'll book it.")) == [
        ("Lisa", "book the hotel for the team", "")]
    # Not a refusal, or not the owner's.
    assert owners_of(asked, ("Tom", "Sorry, I can't hear you.")) == [("Tom", "book the hotel for the team", "")]
    assert owners_of(asked, ("Lisa", "I can't believe it's Friday.")) == [("Tom", "book the hotel for the team", "")]
    assert owners_of(asked, ("Tom", "I can't do Monday, but Wednesday is fine.")) == [
        ("Tom", "book the hotel for the team", "")]


@pytest.mark.parametrize("said, owned", [
    ("The release checklist is out of date. Tomás, please update it by Friday.",
     [("Tomás", "update the release checklist", "Friday")]),
    ("The printer on the third floor is broken again. Tom, can you fix it today?",
     [("Tom", "fix the printer on the third floor", "today")]),
    ("The slides are ready. Tom, please send them to the client.", [("Tom", "send the slides to the client", "")]),
    ("I'm running late. Tom, please send it.", [("Tom", "send it", "")]),  # nothing named before: "it" stays
])
def test_a_task_said_with_it_names_what_the_sentence_before_was_about(said, owned):
    assert owners_of(said) == owned


# 2026-12-07 (second sitting): what 12 dev conversations written apart from the rules showed the rules missing,
# each put in everyday words of its own.
@pytest.mark.parametrize("said, task", [
    ("We'll get the invoices to the accountant by Friday.", "get the invoices to the accountant"),
    ("Then we'll brief the painters on Monday.", "brief the painters"),
    ("We'll work out the seating plan on Thursday.", "work out the seating plan"),
])
def test_more_verbs_make_a_task_of_the_teams(said, task):
    assert [(o, t) for o, t, _ in owners_of(("Ana", said))] == [("unassigned", task)]


@pytest.mark.parametrize("said", ["We'll get there in the end.", "We'll work out whether we can afford it.",
                                  "We'll get back to you next week."])
def test_getting_there_or_working_out_whether_is_no_task(said):
    assert owners_of(("Ana", said)) == []


def test_everyone_told_to_do_something_without_a_please_is_a_task_of_nobody_in_particular():
    assert owners_of(("Ana", "Everyone send me your holiday dates by Friday.")) == [
        ("unassigned", "send me your holiday dates", "Friday")]
    assert owners_of(("Ana", "Everyone knows the drill.")) == []


@pytest.mark.parametrize("said", ["Lukas, off you go.", "Sam, over to you.", "If I can find a spare hour, yes."])
def test_handing_the_floor_or_a_condition_is_no_task(said):
    assert owners_of(("Ana", said)) == []


def test_a_reason_after_the_order_is_not_part_of_the_task():
    assert owners_of(("Ana", "Tom, please chase the supplier this week, you've got the invoice.")) == [
        ("Tom", "chase the supplier", "this week")]


def test_what_i_do_once_you_have_done_yours_is_no_task_of_mine():
    assert owners_of(("Ana", "Tom, send me the draft by Friday, so I can give you feedback.")) == [
        ("Tom", "send me the draft", "Friday")]


@pytest.mark.parametrize("reply", ["Sure, I'll give him a call after lunch.", "Yes, I'll do that this afternoon.",
                                   "Fine, I'll ring him before five."])
def test_a_yes_from_the_one_just_asked_is_the_same_task_in_other_words(reply):
    assert [(o, t) for o, t, _ in owners_of(("Ana", "Tom, can you ring the landlord today?"), ("Tom", reply))] == [
        ("Tom", "ring the landlord")]


def test_a_yes_that_takes_on_something_more_is_a_second_task():
    assert [(o, t) for o, t, _ in owners_of(("Ana", "Tom, can you ring the landlord today?"),
                                            ("Tom", "Sure, and I'll also fix the gate on Friday."))] == [
        ("Tom", "ring the landlord"), ("Tom", "fix the gate")]


@pytest.mark.parametrize("request_", ["Could you send me a photo of the damage by tomorrow?",
                                      "In the meantime, could you send me a photo of the damage by tomorrow?",
                                      "I need you to send me a photo of the damage by tomorrow."])
def test_between_two_people_you_is_the_other_one(request_):
    said = (("Maya", "Thanks for calling, Tom."), ("Tom", "Hi, the boiler is leaking again."), ("Maya", request_))
    assert owners_of(*said) == [("Tom", "send me a photo of the damage", "tomorrow")]


def test_among_three_people_an_unnamed_you_is_nobody_yet():
    said = (("Maya", "Hi both."), ("Tom", "Hi."), ("Ana", "Hello."),
            ("Maya", "Could you send me a photo of the damage by tomorrow?"))
    assert [o for o, _, _ in owners_of(*said)] in ([], ["unassigned"])


def test_a_yes_that_names_the_task_in_the_doers_words_keeps_them():
    assert owners_of(("Ana", "Tom, can you sort out a loan laptop for Priya?"),
                     ("Tom", "Yes, I'll bring my old laptop in tomorrow.")) == [
        ("Tom", "bring my old laptop in", "tomorrow")]


@pytest.mark.parametrize("offer, reply, due", [
    ("Friday is tight for me. Could I have until Monday?", "Monday's fine.", "Monday"),
    ("Would Tuesday the fourteenth be okay?", "Sure, that works.", "Tuesday the fourteenth"),
    ("Could it be the twelfth?", "The twelfth is okay, but not a day later.", "the twelfth"),
])
def test_a_later_day_asked_for_by_the_one_given_the_task_and_granted_is_its_due_date(offer, reply, due):
    assert owners_of(("Ana", "Tom, please send the survey results by Friday."), ("Tom", offer), ("Ana", reply)) == [
        ("Tom", "send the survey results", due)]


def test_a_later_day_asked_for_and_refused_keeps_the_first():
    assert owners_of(("Ana", "Tom, please send the survey results by Friday."), ("Tom", "Could I have until Monday?"),
                     ("Ana", "No, sorry, the board meets on Monday.")) == [("Tom", "send the survey results", "Friday")]


def test_taking_a_task_by_its_name_from_someone_who_cannot_moves_it():
    assert owners_of(("Ana", "Ben, please update the staff rota for the summer by Friday."),
                     ("Ben", "Friday is my day off, so that won't be easy."),
                     ("Kim", "I'll take the rota, I wrote it.")) == [
        ("Kim", "update the staff rota for the summer", "Friday")]
    assert owners_of(("Ana", "Ben, please update the rota by Friday."), ("Kim", "I'll take the minutes."))[0] == (
        "Ben", "update the rota", "Friday")


# 2026-12-07 (fourth sitting): owners a fourth author's meetings made of a day, a filler, a time and a place.
def test_a_day_said_in_the_plural_is_no_one_to_hand_a_task_to():
    assert owners_of(("Ana", "Priya, please book the minibus for the away game."), ("Priya", "Will do."),
                     ("Ben", "Actually, can we move it to Saturdays?"))[0][0] == "Priya"


@pytest.mark.parametrize("said", [
    "The car park was packed this morning. Like, totally rammed.",
    "Also, a complaint. Mrs Patel, last Tuesday. She rang about the refund.",
    "Sellotape's on the shelf.",
    "The Hoover's on the left.",
])
def test_a_filler_a_time_or_a_place_makes_no_one_an_owner(said):
    assert draft_of("Has anyone seen the tape?", said)["action_items"] == []


@pytest.mark.parametrize("said", [
    "Okay, Red Watch, settle down, we've got a lot to get through.",
    "Maya, go back to bed, you look awful.",
    "Hmm. I'll think about it. Don't promise them anything yet.",
    "Jonah, you've done this job for ten years.",
])
def test_an_order_for_now_a_thought_or_a_remark_to_someone_is_no_task(said):
    assert draft_of(said, "Fair enough.")["action_items"] == []
