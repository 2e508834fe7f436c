import pytest

from streamtwin.assistant.answers import (
    ACTION_ITEMS,
    DECISIONS,
    OPEN_QUESTIONS,
    AnswerChecker,
    compose_from_twin,
    question_kind,
)
from streamtwin.twin.heard import HeardIndex
from streamtwin.twin.model import empty_state

HEARD = HeardIndex.of(
    "[1.0s] Carol, please fix the search page by Wednesday.\n"
    "[5.0s] Bob, can you send the cost report by Friday?\n"
    "[9.0s] We decided to move the launch to June.\n"
)
STATE = {
    **empty_state(),
    "action_items": [
        {"id": "a1", "text": "fix the search page", "owner": "Carol", "due": "Wednesday"},
        {"id": "a2", "text": "send the cost report", "owner": "Bob", "due": "Friday"},
    ],
    "decisions": ["move the launch to June"],
}


def test_question_kinds():
    assert question_kind("Assistant, can you tell us the action items?") == ACTION_ITEMS
    assert question_kind("Assistant, what did we decide about the budget?") == DECISIONS
    assert question_kind("Assistant, what open questions do we have?") == OPEN_QUESTIONS
    assert question_kind("Assistant, when is the quiz?") is None


@pytest.mark.parametrize("question, kind", [
    # Everyday ways of asking for a list (2026-12-06: 15 of 25 went unrecognised, one to the wrong list)
    ("Assistant, who's doing what?", ACTION_ITEMS),
    ("Assistant, what do we each have to do?", ACTION_ITEMS),
    ("Assistant, what did people sign up for?", ACTION_ITEMS),
    ("Assistant, what are the follow-ups?", ACTION_ITEMS),
    ("Assistant, what did we agree on?", DECISIONS),
    ("Assistant, what have we settled?", DECISIONS),
    ("Assistant, what's the outcome?", DECISIONS),
    ("Assistant, what did we land on for the venue?", DECISIONS),
    ("Assistant, where did we end up on pricing?", DECISIONS),
    ("Assistant, what do we still need to figure out?", OPEN_QUESTIONS),
    ("Assistant, what haven't we decided yet?", OPEN_QUESTIONS),
    ("Assistant, what's up in the air?", OPEN_QUESTIONS),
    ("Assistant, any loose ends?", OPEN_QUESTIONS),
    ("Assistant, what questions are left?", OPEN_QUESTIONS),
    # questions of fact, and one's own tasks (answered from the asker's items), ask for no list
    ("Assistant, what am I supposed to do?", None),
    ("Assistant, what's the outcome of the blood test?", None),
    ("Assistant, when did we agree to meet?", None),
    ("Assistant, is the bill settled?", None),
])
def test_lists_asked_for_in_everyday_words(question, kind):
    assert question_kind(question) == kind


def test_composed_answers_hold_what_the_twin_holds():
    assert compose_from_twin(ACTION_ITEMS, STATE) == (
        "Action items: Carol: fix the search page (due Wednesday); Bob: send the cost report (due Friday)."
    )
    assert compose_from_twin(ACTION_ITEMS, STATE, "Assistant, who sends the cost report?") == (
        "Action items: Bob: send the cost report (due Friday)."
    )
    assert compose_from_twin(OPEN_QUESTIONS, STATE) == "No open questions so far."


def check(answer, question="Assistant, who fixes the search page?", earlier=()):
    return AnswerChecker().problem(answer, question, HEARD, STATE, list(earlier))


def test_an_answer_that_contradicts_the_twin_on_a_task_it_holds_is_not_shown():
    from streamtwin.assistant.answers import worth_retrying

    wrong_owner = check("Bob fixes the search page.")
    assert wrong_owner.startswith("disagrees with the twin") and "Carol" in wrong_owner
    assert not worth_retrying(wrong_owner)  # the twin's own answer is shown at once instead
    wrong_day = check("Carol fixes it on Friday.", "Assistant, when will Carol fix the search page?")
    assert wrong_day.startswith("disagrees with the twin") and "Wednesday" in wrong_day
    assert check("Carol fixes it by Wednesday.", "Assistant, when will Carol fix the search page?") == ""
    assert check("Carol does.") == ""


def test_what_did_i_promise_answered_without_any_of_the_askers_tasks_is_not_shown():
    question = "Assistant, what did I promise to do?"
    wrong = AnswerChecker().problem("You promised to send the cost report.", question, HEARD, STATE, [], asker="Carol")
    assert wrong.startswith("disagrees with the twin")
    assert AnswerChecker().problem("You will fix the search page by Wednesday.", question, HEARD, STATE, [],
                                   asker="Carol") == ""
    assert AnswerChecker().problem("You promised to send the cost report.", question, HEARD, STATE, [],
                                   asker="Bob") == ""


def test_a_grounded_answer_passes():
    assert check("Carol fixes the search page by Wednesday.") == ""


def test_bad_answers_say_why():
    assert check("") == "empty"
    assert check("[12.0s] Bob: yes I will") == "continues the transcript instead of answering"
    assert check("Carol fixes it.", earlier=["Carol fixes it."]) == "repeats an earlier answer"
    # Measured (SmolLM2, corrections): the transcript went on under its voices' labels, one line over and over;
    # its "Friday" scored as a right answer.
    assert check("S2: No, Friday, not Thursday.\nS1: Right, Friday then.") == "continues the transcript instead of answering"
    assert check("Carol fixes the search page.\nBob sends the cost report.\n" * 3) == "repeats itself"
    assert check("The marketing agency redesigns the brochure layout.") == "not grounded in the transcript or the twin"
    assert check("The search page is fixed by John on Wednesday.").startswith("names someone nobody mentioned: John")
    assert check("Carol fixes the search page.", "Assistant, what are the action items?") == (
        "leaves out most of the action items the twin holds"
    )
    # Measured (Qwen 1.5B, offtopic): every task, no owner; the twin knew who does what.
    assert check("Fix the search page by Wednesday and send the cost report by Friday.",
                 "Assistant, what are the action items?") == "leaves out most of the action items the twin holds"
    assert check("Carol fixes the search page by Wednesday; Bob sends the cost report by Friday.",
                 "Assistant, what are the action items?") == ""


def test_without_a_model_a_question_is_answered_by_quoting_what_was_said():
    from streamtwin.assistant.answers import quote_answer

    heard = HeardIndex.of(
        "I will send you a new router, and it will arrive on Thursday.\n"
        "My manager will call you back tomorrow.\n"
        "Assistant, when will the new router arrive?\n"
    )
    addressed = lambda text: text.startswith("Assistant")  # noqa: E731
    answer = quote_answer("Assistant, when will the new router arrive?", heard, addressed)
    assert answer == 'From what was said: "I will send you a new router, and it will arrive on Thursday."'
    assert quote_answer("Assistant, what is the capital of Peru?", heard, addressed) == ""


def test_a_when_question_is_answered_by_the_line_that_names_a_day_not_by_a_question():
    from streamtwin.assistant.answers import quote_answer

    heard = HeardIndex.of(
        "For next week, everyone please read chapter 5. The quiz is on Monday.\n"
        "Yes, the Calvin cycle will be on the quiz.\n"
        "Can we use our notes during the quiz?\n"
    )
    answer = quote_answer("Assistant, when is the quiz?", heard, lambda text: text.startswith("Assistant"))
    assert answer == 'From what was said: "For next week, everyone please read chapter 5. The quiz is on Monday."'
    heard.add("Who brings the quiz sheets?")
    answer = quote_answer("Assistant, what about the quiz sheets?", heard, lambda text: False)
    assert answer == 'From what was said: "Who brings the quiz sheets?"'  # closer words still come first


def test_an_answer_that_only_echoes_the_question_is_rejected_but_yes_is_an_answer():
    question = "Assistant, when will the new router arrive?"
    assert check('The task is to ask the assistant: "When will the new router arrive?"', question) == (
        "only repeats the question"
    )
    assert check("Yes, we launch the search page.", "Assistant, do we launch the search page?") == ""


def test_a_question_about_one_task_is_answered_from_that_item_of_the_twin():
    from streamtwin.assistant.answers import twin_answer

    assert twin_answer("Assistant, who is fixing the search page?", STATE) == (
        "Action items: Carol: fix the search page (due Wednesday)."
    )
    assert twin_answer("Assistant, when is the cost report due?", STATE) == (
        "Action items: Bob: send the cost report (due Friday)."
    )
    assert twin_answer("Assistant, what did we decide?", STATE) == "Decisions: move the launch to June."
    assert twin_answer("Assistant, what is the capital of Peru?", STATE) == ""


def test_the_askers_own_tasks_answer_what_did_i_promise():
    from streamtwin.assistant.answers import twin_answer

    assert twin_answer("Assistant, what did I promise to do?", STATE, asker="Bob") == (
        "Action items: Bob: send the cost report (due Friday)."
    )
    assert twin_answer("Assistant, what's on my plate this week?", STATE, asker="Carol") == (
        "Action items: Carol: fix the search page (due Wednesday)."
    )
    assert twin_answer("Assistant, what did I promise to do?", STATE, asker="Dana") == ""  # nothing of hers


def test_a_who_question_finds_the_task_whose_words_it_names_in_part():
    from streamtwin.assistant.answers import twin_answer

    state = {**STATE, "action_items": [
        {"id": "a1", "text": "call the pharmacy about the missing antibiotics for bed eight", "owner": "Megan", "due": ""},
    ]}
    assert twin_answer("Assistant, who is calling the pharmacy?", state) == (
        "Action items: Megan: call the pharmacy about the missing antibiotics for bed eight."
    )
    assert twin_answer("Assistant, what is missing from the pharmacy order?", state) == ""  # not a who-question


def test_a_how_many_question_is_answered_by_the_number_said_not_by_a_task_that_mentions_it():
    from streamtwin.assistant.answers import quote_answer, twin_answer

    state = {**STATE, "action_items": [
        {"id": "a1", "text": "email the parents asking for volunteers", "owner": "Arjun", "due": ""},
    ]}
    assert twin_answer("Assistant, how many parent volunteers do we need?", state) == ""
    heard = HeardIndex.of(
        "We need parent volunteers for the museum trip.\n"
        "We have five teachers, so we need three parent volunteers.\n"
        "Could someone email the parents about volunteers?\n"
    )
    answer = quote_answer("Assistant, how many parent volunteers do we need?", heard, lambda text: False)
    assert answer == 'From what was said: "We have five teachers, so we need three parent volunteers."'


def test_a_number_is_an_answer_but_only_a_number_that_was_said():
    question = "Assistant, how many laptops do we order?"
    heard = HeardIndex.of("We order 12 laptops for the library.\n")
    assert AnswerChecker().problem("We order 12.", question, heard, STATE, []) == ""
    assert AnswerChecker().problem("We order 15.", question, heard, STATE, []) == "gives a number nobody said: 15"
    assert AnswerChecker().problem("We order twelve.", question, heard, STATE, []) == ""
    # A small model's "up to five days a week" when "two days a week" was misheard: five was never said.
    heard.add("And you can work from home today my week.")
    answer = "You can work from home up to five days a week."
    assert AnswerChecker().problem(answer, "Assistant, how many days a week can I work from home?", heard, STATE, []) \
        == "gives a number nobody said: 5"


def test_what_an_answer_adds_to_the_question_must_have_been_said():
    heard = HeardIndex.of("Plants take carbon dioxide and water, and with the energy of sunlight make sugar and oxygen.\n")
    question = "Assistant, what do plants make from carbon dioxide and water?"
    glucose = "Plants make glucose from carbon dioxide and water through the process of photosynthesis."
    assert AnswerChecker().problem(glucose, question, heard, STATE, []) == "not grounded in the transcript or the twin"
    assert AnswerChecker().problem("Plants make sugar and oxygen from carbon dioxide and water.", question,
                                   heard, STATE, []) == ""


def test_a_number_must_count_what_it_was_said_of():
    # Measured (Qwen 1.5B, interview): "We are six people, and you can work from home two days a week."
    # answered "David can work from home 6 days a week.".
    heard = HeardIndex.of("Rachel: We are six people, and you can work from home two days a week.\n")
    question = "Assistant, how many days a week can I work from home?"
    assert AnswerChecker().problem("You can work from home 6 days a week.", question, heard, STATE, []) \
        == "says 6 day, but 6 was said of something else"
    assert AnswerChecker().problem("You can work from home 2 days a week.", question, heard, STATE, []) == ""
    assert AnswerChecker().problem("Two days a week; the team is 6 people.", question, heard, STATE, []) == ""
    # A number said with no counted word after it is not held to one.
    heard.add("We spend 20,000 on online ads.")
    assert AnswerChecker().problem("We spend 20,000 dollars on online ads.", "Assistant, what is the budget?",
                                   heard, STATE, []) == ""


def test_a_question_about_a_person_wants_an_answer_about_them_and_the_twin_answers_with_their_tasks():
    from streamtwin.assistant.answers import twin_answer

    question = "Assistant, what is Carol working on today?"
    # Measured (Qwen 1.5B, stand-up): "what is Tom working on?" answered with Mike's blocker.
    assert check("Bob is sending the cost report by Friday.", question) == "is not about Carol, who was asked about"
    assert check("Carol is fixing the search page.", question) == ""
    assert twin_answer(question, STATE) == "Action items: Carol: fix the search page (due Wednesday)."
    assert twin_answer("Assistant, where did Carol work before?", STATE) == ""  # not about her tasks
    assert check("Carol fixes the search page by Wednesday.", "Assistant, what is Dave working on?") == ""  # not a person here


def test_an_answer_is_shaped_by_what_is_asked():
    from streamtwin.assistant.answers import answer_shape

    assert answer_shape("Assistant, who is booking the venue?").startswith("Start with the name")
    assert answer_shape("Assistant, when does the scaffolding come down?").startswith("Start with the day")
    assert answer_shape("Assistant, what did we decide about the launch?").startswith("Say what was decided")
    assert answer_shape("Assistant, what are the action items?").startswith("List them")
    assert answer_shape("Assistant, is the heater fixed?") == ""


def test_what_was_decided_about_a_topic_answers_with_that_decision_or_lets_the_transcript_answer():
    from streamtwin.assistant.answers import twin_answer

    state = {**empty_state(), "decisions": ["Launch the app in May", "Move the office to Leeds"]}
    assert twin_answer("Assistant, what did we decide about the launch?", state) == "Decisions: Launch the app in May."
    # Nothing decided about the mobile version in the twin: no "No decisions so far", the transcript answers.
    assert twin_answer("Assistant, what did we decide about the mobile version?", state) == ""
    assert twin_answer("Assistant, what did we decide?", {**empty_state()}) == "No decisions so far."


_TASKS = {**STATE, "people": [{"name": "Tom"}, {"name": "Priya"}, {"name": "Ana"}], "action_items": [
    {"id": "a1", "text": "book the venue", "owner": "Tom", "due": "Friday"},
    {"id": "a2", "text": "send the invoices to the client", "owner": "Priya", "due": "Monday"},
    {"id": "a3", "text": "order the name badges", "owner": "Ana", "due": ""},
]}


@pytest.mark.parametrize("question, asker, task", [
    ("What does Tom have to do?", "", "book the venue"),
    ("What is Tom supposed to do?", "", "book the venue"),
    ("Anything for Priya?", "", "send the invoices"),
    ("What's Priya handling?", "", "send the invoices"),
    ("What did Priya take on?", "", "send the invoices"),
    ("What has Ana got to do?", "", "order the name badges"),
    ("What's Tom's job?", "", "book the venue"),
    ("What was I supposed to do?", "Tom", "book the venue"),
    ("Do I have anything?", "Priya", "send the invoices"),
    ("Anything for me?", "Tom", "book the venue"),
    ("By when do the invoices go out?", "", "send the invoices"),
])
def test_everyday_questions_about_someones_tasks_get_just_theirs(question, asker, task):
    from streamtwin.assistant.answers import twin_answer

    answer = twin_answer(question, _TASKS, asker)
    assert task in answer and answer.count(":") == 2  # "Action items: <owner>: <task>": that one task alone


@pytest.mark.parametrize("question, asker", [
    ("Did Tom finish his job application?", ""), ("What did Tom say about the budget?", ""),
    ("When is Tom's flight?", ""), ("Do I have the slides?", "Tom"),
])
def test_a_question_that_names_someone_without_asking_for_their_tasks_gets_no_task_list(question, asker):
    from streamtwin.assistant.answers import twin_answer

    assert twin_answer(question, _TASKS, asker) == ""


def test_a_when_question_about_a_task_with_no_day_is_left_to_what_was_said():
    from streamtwin.assistant.answers import twin_answer

    assert twin_answer("When are the badges coming?", _TASKS) == ""  # Ana's task holds no day
    assert twin_answer("When is the venue booked?", _TASKS) == "Action items: Tom: book the venue (due Friday)."


def test_a_question_quoted_as_the_closest_line_comes_with_its_reply():
    from streamtwin.assistant.answers import quote_answer

    heard = HeardIndex.of("Is parking still free on Sundays?\nIt went up to two pounds in March.\n")
    answer = quote_answer("Assistant, what does Sunday parking cost now?", heard, lambda text: False)
    assert answer == 'From what was said: "Is parking still free on Sundays? It went up to two pounds in March."'


def test_a_what_date_question_is_a_when_question():
    from streamtwin.assistant.answers import quote_answer

    heard = HeardIndex.of("We'll want the hall from the ninth.\nMo has run the hall bookings for years.\n")
    answer = quote_answer("Assistant, from what date do we need the hall?", heard, lambda text: False)
    assert answer == 'From what was said: "We\'ll want the hall from the ninth."'
