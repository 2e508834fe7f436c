#!/usr/bin/env python3
"""Generate the meeting evaluation set under samples/eval/ (deterministic).

Eight short conversations of different kinds, 2-4 synthetic voices each, and a gold
JSON per conversation that ``bench/understanding.py`` scores the pipeline against:

  eval/NAME.ogg   the conversation: Opus in Ogg, 16 kHz mono, 32 kbit/s (small enough to commit)
  eval/NAME.json  gold: kind, speakers (voice per person), lines [{speaker, voice, text, start, end}]
                  (per-line speaker labels), people, action_items [{owner, task, due}] (task: key
                  words; owner null = unassigned), decisions and open_questions [{text, keywords}],
                  questions [{line, text, facts}] (questions asked aloud to the assistant; facts: a
                  right answer contains one word of every inner list)

Owners are always recoverable from the words alone (named in the task's sentence or the
reply to it): the pipeline has no speaker labels yet, and the gold must not ask for them.

Tools: espeak-ng and sox through ``make_samples.tts`` (same voices settings, bit-reproducible
PCM), ffmpeg with libopus (bit-exact flags) for the container.

Usage:  python3 samples/make_eval.py [--only NAME]
"""
from __future__ import annotations

import argparse
import array
import json
import subprocess
import tempfile
from pathlib import Path

from make_samples import SPEED_WPM, SR, tts, write_wav_s16

HERE = Path(__file__).resolve().parent
OUT = HERE / "eval"

LEAD_IN = 0.5
TAIL = 1.0
# Pauses between turns: all longer than the 0.6 s gap that separates utterances when the
# speech stage gives no utterance ids; fixed list, so the output is deterministic.
PAUSES = [0.9, 1.1, 0.8, 1.3, 1.0, 0.85, 1.2, 0.95]

# Distinct voices (en-us and en-gb sound alike; "en+mN" is the British voice with a variant).
V_US, V_M7, V_F3, V_M3 = "en-us", "en+m7", "en-us+f3", "en+m3"


def item(owner: str | None, task: str, due: str = "") -> dict:
    return {"owner": owner, "task": task.split(), "due": due}


def point(text: str, keywords: str) -> dict:
    return {"text": text, "keywords": keywords.split()}


def ask(line: int, *facts: str) -> dict:
    """A question to the assistant at ``line``; each fact is "alt1|alt2" (any one of them)."""
    return {"line": line, "facts": [fact.split("|") for fact in facts]}


CONVERSATIONS: dict[str, dict] = {
    "standup": {
        "kind": "stand-up",
        "speakers": {"Anna": V_F3, "Tom": V_M7, "Mike": V_US},
        "turns": [
            ("Anna", "Good morning. Let's do the stand-up. Tom, you go first."),
            ("Tom", "Yesterday I finished the login page. Today I will fix the password reset bug. It will be done by Wednesday."),
            ("Anna", "Thanks, Tom. Mike, how about you?"),
            ("Mike", "I am still working on the mobile app. I am blocked, because I have no access to the test server."),
            ("Anna", "I will ask the admin team for your access today."),
            ("Mike", "Thank you, Anna. After that I will write the release notes by Friday."),
            ("Anna", "One open question is whether we ship the mobile app this month or next month."),
            ("Tom", "Can we decide that on Monday?"),
            ("Anna", "Yes. Assistant, what is Tom working on today?"),
            ("Mike", "Assistant, who is blocked and why?"),
        ],
        "people": ["Anna", "Tom", "Mike"],
        "action_items": [
            item("Tom", "fix password reset bug", "Wednesday"),
            item("Anna", "ask admin team access", "today"),
            item("Mike", "write release notes", "Friday"),
        ],
        "decisions": [],
        "open_questions": [point("ship the mobile app this month or next month", "ship mobile app month")],
        "questions": [ask(8, "password", "reset|bug"), ask(9, "mike", "access|server")],
    },
    "planning": {
        "kind": "planning with decisions",
        "speakers": {"Linda": V_F3, "Mark": V_M3, "Peter": V_M7, "Sarah": V_US},
        "turns": [
            ("Linda", "Welcome to the planning meeting for the spring campaign. We have three things to decide today."),
            ("Mark", "First, the budget. I suggest we spend twenty thousand dollars on online ads."),
            ("Sarah", "That sounds right. Print ads did not work last year."),
            ("Linda", "Then we decided: twenty thousand dollars for online ads, and no print ads."),
            ("Peter", "Second, the start date. I think the campaign should start on the first of April."),
            ("Linda", "Agreed, the campaign starts on the first of April. Peter, please book the video studio by next Tuesday."),
            ("Peter", "Yes, I will book the video studio by Tuesday."),
            ("Linda", "Sarah, can you write the email newsletter before the end of March?"),
            ("Sarah", "Sure, I will write the newsletter by the end of March."),
            ("Mark", "What about the logo? Do we keep the old one?"),
            ("Linda", "We do not know yet. That stays an open question until the designer replies."),
            ("Linda", "Assistant, what did we decide about the budget?"),
            ("Mark", "Assistant, who is booking the video studio?"),
        ],
        "people": ["Linda", "Mark", "Peter", "Sarah"],
        "action_items": [
            item("Peter", "book video studio", "next Tuesday"),
            item("Sarah", "write email newsletter", "end of March"),
        ],
        "decisions": [
            point("twenty thousand dollars for online ads, no print ads", "online ads"),
            point("the campaign starts on the first of April", "campaign start april"),
        ],
        "open_questions": [point("whether to keep the old logo", "logo")],
        "questions": [ask(11, "twenty|20,000|20000|$20", "online"), ask(12, "peter")],
    },
    "support": {
        "kind": "support call",
        "speakers": {"Emma": V_F3, "James": V_M7},
        "turns": [
            ("Emma", "Thank you for calling Northwind support. My name is Emma. How can I help you?"),
            ("James", "Hi Emma, this is James Walker. My internet has been down since yesterday evening."),
            ("Emma", "I am sorry to hear that, James. Is the light on your router red or green?"),
            ("James", "It is blinking red."),
            ("Emma", "Please restart the router and wait two minutes."),
            ("James", "I restarted it, but the light is still red."),
            ("Emma", "Then the router is broken. We decided to replace it. I will send you a new router, and it will arrive on Thursday."),
            ("James", "Will I get a refund for the days without internet?"),
            ("Emma", "I cannot promise that now. My manager, Daniel, will decide about the refund and call you back tomorrow."),
            ("James", "Okay, thank you. Assistant, when will the new router arrive?"),
            ("Emma", "Assistant, what are the action items from this call?"),
        ],
        "people": ["Emma", "James", "Daniel"],
        "action_items": [
            item("Emma", "send new router", "Thursday"),
            item("Daniel", "decide refund call back", "tomorrow"),
        ],
        "decisions": [point("replace the broken router", "replace router")],
        "open_questions": [point("whether James gets a refund for the days without internet", "refund")],
        "questions": [ask(9, "thursday"), ask(10, "router", "refund")],
    },
    "interview": {
        "kind": "interview",
        "speakers": {"Rachel": V_US, "David": V_M3},
        "turns": [
            ("Rachel", "Hello David, thanks for coming in. I am Rachel, and I lead the data team. Can you tell me about your last job?"),
            ("David", "Sure. For four years I worked at a bank as a data analyst. I built reports in Python and SQL."),
            ("Rachel", "What was your biggest project there?"),
            ("David", "I moved all our reports to a new cloud database. It saved the bank about thirty percent in costs."),
            ("Rachel", "Impressive. Why do you want to leave?"),
            ("David", "I want to work on machine learning, and the bank does not do that."),
            ("Rachel", "Do you have any questions for me?"),
            ("David", "How big is the team, and can I work from home?"),
            ("Rachel", "We are six people, and you can work from home two days a week. I will send you the coding test tomorrow. David, please return it within one week."),
            ("David", "Great, I will return the coding test within a week."),
            ("Rachel", "Assistant, where did David work before?"),
            ("David", "Assistant, how many days a week can I work from home?"),
        ],
        "people": ["Rachel", "David"],
        "action_items": [
            item("Rachel", "send coding test", "tomorrow"),
            item("David", "return coding test", "within one week"),
        ],
        "decisions": [],
        "open_questions": [],
        "questions": [ask(10, "bank"), ask(11, "two|2")],
    },
    "lecture": {
        "kind": "lecture with questions at the end",
        "speakers": {"Professor Hill": V_M7, "Nina": V_F3, "Omar": V_US},
        "turns": [
            ("Professor Hill", "Good afternoon. Today's lecture is about photosynthesis. Plants take in carbon dioxide and water, and with the energy of sunlight they make sugar and oxygen."),
            ("Professor Hill", "This happens in the chloroplasts, which contain a green pigment called chlorophyll. The light reactions make energy carriers, and the Calvin cycle uses them to build sugar."),
            ("Professor Hill", "For next week, everyone please read chapter five. The quiz is on Monday."),
            ("Nina", "Professor Hill, is the Calvin cycle also on the quiz?"),
            ("Professor Hill", "Yes, Nina, the Calvin cycle will be on the quiz."),
            ("Omar", "Can we use our notes during the quiz?"),
            ("Professor Hill", "No notes, Omar. But I will post the slides online tonight."),
            ("Nina", "Why are leaves green and not black, if black absorbs more light?"),
            ("Professor Hill", "That is an open question. Scientists still debate it. We will come back to it next week."),
            ("Omar", "Assistant, what do plants make from carbon dioxide and water?"),
            ("Nina", "Assistant, when is the quiz?"),
        ],
        "people": ["Professor Hill", "Nina", "Omar"],
        "action_items": [
            item(None, "read chapter five", "next week"),
            item("Professor Hill", "post slides online", "tonight"),
        ],
        "decisions": [point("no notes during the quiz", "notes quiz")],
        "open_questions": [point("why leaves are green and not black", "leaves green black")],
        "questions": [ask(9, "sugar|glucose", "oxygen"), ask(10, "monday")],
    },
    "brainstorm": {
        "kind": "brainstorm with open questions",
        "speakers": {"Julia": V_F3, "Ben": V_M3, "Chris": V_M7},
        "turns": [
            ("Julia", "Let's brainstorm features for the new cooking app."),
            ("Ben", "What if the app suggests recipes from what is in your fridge?"),
            ("Chris", "I like that. We could also add a shopping list that the whole family can share."),
            ("Julia", "Good ideas. But how would the app know what is in the fridge? That is still an open question."),
            ("Ben", "Another open question is whether people would pay for it, or if it should be free with ads."),
            ("Chris", "And should we build it for phones first, or for the web?"),
            ("Julia", "We decided one thing already: the first version will only support English."),
            ("Ben", "For the name, how about Fridge Chef?"),
            ("Julia", "Nice. Chris, please check by Friday if the name Fridge Chef is free."),
            ("Chris", "Okay, I will check the name by Friday. Ben, can you draw some screen sketches by next Wednesday?"),
            ("Ben", "Sure, I will draw the sketches by Wednesday."),
            ("Ben", "Assistant, what open questions do we have?"),
        ],
        "people": ["Julia", "Ben", "Chris"],
        "action_items": [
            item("Chris", "check name Fridge Chef", "Friday"),
            item("Ben", "draw screen sketches", "next Wednesday"),
        ],
        "decisions": [point("the first version only supports English", "first version english")],
        "open_questions": [
            point("how the app knows what is in the fridge", "app know fridge"),
            point("whether people would pay or it is free with ads", "pay free ads"),
            point("phones first or the web", "phones web"),
        ],
        "questions": [ask(11, "fridge", "pay|free|ads", "phone|phones|web")],
    },
    "corrections": {
        "kind": "planning with spoken corrections",
        "speakers": {"Karen": V_F3, "Steve": V_M7, "Paul": V_US},
        "turns": [
            ("Karen", "Let's plan the office move. Steve, please order the moving boxes by Thursday."),
            ("Steve", "No, Friday, not Thursday. The supplier is closed on Thursday."),
            ("Karen", "Right, Friday then. Paul, you will rent the truck for the twelfth of May."),
            ("Paul", "Sorry, a correction: the move is on the nineteenth of May, not the twelfth."),
            ("Karen", "Yes, you are right. So Paul rents the truck for the nineteenth of May."),
            ("Steve", "Who cleans the old office?"),
            ("Karen", "I will hire a cleaning company. Actually, no, Steve will do that, because he knows the building manager."),
            ("Steve", "Fine, I will hire the cleaning company by next Monday."),
            ("Karen", "We decided that the new office opens on the twentieth of May."),
            ("Paul", "Assistant, when will Steve order the boxes?"),
            ("Karen", "Assistant, who hires the cleaning company?"),
        ],
        "people": ["Karen", "Steve", "Paul"],
        "action_items": [
            item("Steve", "order moving boxes", "Friday"),
            item("Paul", "rent truck", "nineteenth of May"),
            item("Steve", "hire cleaning company", "next Monday"),
        ],
        "decisions": [
            point("the move is on the nineteenth of May", "move nineteenth may"),
            point("the new office opens on the twentieth of May", "office open twentieth"),
        ],
        "open_questions": [],
        "questions": [ask(9, "friday"), ask(10, "steve")],
    },
    "offtopic": {
        "kind": "bug review with a long off-topic stretch",
        "speakers": {"Helen": V_F3, "Greg": V_M3, "Victor": V_M7},
        "turns": [
            ("Helen", "Okay, let's review the bug list before the release."),
            ("Greg", "Before we start, did anyone watch the football game last night?"),
            ("Victor", "Yes, what a match! The goalkeeper saved two penalties in the last minutes."),
            ("Greg", "I could not believe it. My brother was at the stadium, and he said the noise was incredible."),
            ("Victor", "And the weather was terrible. It rained for the whole second half."),
            ("Greg", "I also started cooking Italian food this weekend. I made fresh pasta for the first time."),
            ("Victor", "Nice, I love pasta. My favorite is lasagna."),
            ("Helen", "Okay, back to work. The payment bug is the most important one. Greg, please fix the payment bug by tomorrow."),
            ("Greg", "Sure, I will fix the payment bug by tomorrow morning."),
            ("Helen", "Victor, can you update the user guide before the release on Friday?"),
            ("Victor", "Yes, I will update the user guide by Friday."),
            ("Helen", "We decided to move the dark mode feature to the next release."),
            ("Helen", "Assistant, what are the action items?"),
        ],
        "people": ["Helen", "Greg", "Victor"],
        "action_items": [
            item("Greg", "fix payment bug", "tomorrow"),
            item("Victor", "update user guide", "Friday"),
        ],
        "decisions": [point("move the dark mode feature to the next release", "dark mode next release")],
        "open_questions": [],
        "questions": [ask(12, "greg", "payment", "victor", "guide")],
    },
}


def make(name: str, spec: dict, tmp: Path) -> dict:
    audio = array.array("h", [0] * int(LEAD_IN * SR))
    lines = []
    turns = spec["turns"]
    for k, (speaker, text) in enumerate(turns):
        voice = spec["speakers"][speaker]
        clip = tts(text, voice, SPEED_WPM, tmp, f"{name}_{k:02d}")
        start = len(audio)
        audio.extend(clip)
        lines.append({"speaker": speaker, "voice": voice, "text": text,
                      "start": round(start / SR, 3), "end": round(len(audio) / SR, 3)})
        gap = PAUSES[k % len(PAUSES)] if k < len(turns) - 1 else TAIL
        audio.extend([0] * int(round(gap * SR)))
    wav = tmp / f"{name}.wav"
    write_wav_s16(wav, audio)
    subprocess.run(
        ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", str(wav),
         "-c:a", "libopus", "-b:a", "32k", "-ar", str(SR), "-ac", "1",
         "-map_metadata", "-1", "-fflags", "+bitexact", "-flags", "+bitexact", "-serial_offset", "1", str(OUT / f"{name}.ogg")],
        check=True,
    )
    questions = []
    for question in spec["questions"]:
        text = turns[question["line"]][1]
        asked = text[text.index("Assistant,"):]  # the part addressed to the assistant
        questions.append({"line": question["line"], "text": asked, "facts": question["facts"]})
    gold = {
        "name": name,
        "kind": spec["kind"],
        "audio": f"{name}.ogg",
        "duration": round(len(audio) / SR, 3),
        "speakers": spec["speakers"],
        "lines": lines,
        "people": spec["people"],
        "action_items": spec["action_items"],
        "decisions": spec["decisions"],
        "open_questions": spec["open_questions"],
        "questions": questions,
    }
    (OUT / f"{name}.json").write_text(json.dumps(gold, indent=2) + "\n")
    return gold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="make one conversation")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    names = [args.only] if args.only else list(CONVERSATIONS)
    with tempfile.TemporaryDirectory(prefix="eval_") as tmp:
        for name in names:
            gold = make(name, CONVERSATIONS[name], Path(tmp))
            words = sum(len(line["text"].split()) for line in gold["lines"])
            print(f"{name}: {gold['duration']} s, {len(gold['lines'])} lines, {words} words")


if __name__ == "__main__":
    main()
