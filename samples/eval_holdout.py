"""The `holdout` split of the evaluation set: conversations written apart from the understanding code.

Pure data in the format make_eval.py's docstring describes.  Written from scratch by someone who had not
read the extraction rules, the dev or test conversations (beyond one, for the format) or their gold; never
read while tuning: score it with ``python -m bench.understanding --split holdout`` and report the figures only.
"""

V_US, V_M7, V_F3, V_M3 = "en-us", "en+m7", "en-us+f3", "en+m3"
V_F4, V_M2, V_F2 = "en+f4", "en-us+m2", "en+f2"

CONVERSATIONS: dict[str, dict] = {
    "ferry_standup": {
        "kind": "stand-up",
        "speakers": {"Radka": V_F4, "Oluwaseun": V_M3, "Ines": V_F3, "Kenji": V_M2},
        "turns": [
            ("Radka", "Morning, all. Short one today, because the timetable import fell over again last night. "
                      "Oluwaseun, you start."),
            ("Oluwaseun", "Sure. Yesterday was mostly the seat map, which is nearly there. Today I'm jumping on "
                          "the import, and I'll have a fix in by Thursday."),
            ("Ines", "Was it the new winter schedule that broke it, or did the harbour feed just go down?"),
            ("Oluwaseun", "Honestly, no idea yet. Could be either."),
            ("Kenji", "From me, the refund screen is finished. Ines, could you give it a review before lunch "
                      "tomorrow?"),
            ("Ines", "Yep, happy to. Just so nobody's waiting on me, I'm not touching push notifications this "
                     "week. They're parked until the wording is signed off."),
            ("Radka", "That's fine. Oh, and the booking flow keeps the grey button. Product signed it off last "
                      "night, so that's settled."),
            ("Kenji", "Finally. Mind you, if the harbour people change their feed format again, we'd have to "
                      "rewrite the whole parser."),
            ("Radka", "Let's not borrow trouble. Kenji, please update the release checklist with the new store "
                      "screenshots."),
            ("Kenji", "Will do."),
            ("Radka", "Oluwaseun, one snag. The winter timetable goes live on Wednesday, so the import fix has "
                      "to land Tuesday, not Thursday."),
            ("Oluwaseun", "Tuesday. Tight, but fine."),
            ("Radka", "And we still don't know whether we keep supporting the old Android version from two "
                      "years ago. Nobody's made that call."),
            ("Ines", "Assistant, who's fixing the timetable import, and when is it due?"),
            ("Kenji", "Assistant, what did we settle on for the booking flow?"),
        ],
        "people": ["Radka", "Oluwaseun", "Ines", "Kenji"],
        "action_items": [
            ("Oluwaseun", "fix timetable import", "Tuesday", "i_will", "voice"),
            ("Ines", "review refund screen", "tomorrow before lunch", "could_you", "address"),
            ("Kenji", "update release checklist store screenshots", "", "imperative", "address"),
        ],
        "decisions": [("the booking flow keeps the grey button", "booking flow grey button")],
        "open_questions": [("whether to keep supporting the two-year-old Android version",
                            "supporting old android version")],
        "questions": [(13, "oluwaseun", "tuesday"), (14, "grey", "button")],
        "non_items": [
            (2, "action_item", "question", "winter schedule harbour feed"),
            (5, "action_item", "negation", "push notifications"),
            (7, "action_item", "hypothetical", "rewrite parser feed format"),
        ],
    },
    "payroll_retro": {
        "kind": "retro",
        "speakers": {"Astrid": V_F2, "Tendai": V_M7, "Noor": V_F3, "Farhan": V_M2, "Bartek": V_US},
        "turns": [
            ("Astrid", "Okay, retro time. Let's start with what went well."),
            ("Tendai", "The payroll export shipped on time, and for once nobody worked the weekend."),
            ("Noor", "The thing that didn't go well was code review. Pull requests sat there for three or four "
                     "days."),
            ("Farhan", "Yeah. What if every review had to be picked up within one working day?"),
            ("Astrid", "I like that. From next sprint, reviews get picked up within a working day. That's the "
                       "new rule."),
            ("Bartek", "Fine by me. The staging database was a mess again too. Can someone write down how to "
                       "reset it properly?"),
            ("Noor", "I'll write that up. I've done the reset about ten times now."),
            ("Astrid", "Brilliant. Farhan, the flaky tests were yours last sprint, weren't they?"),
            ("Farhan", "They were, but I'm on leave for two weeks from Monday. Tendai, would you take the flaky "
                       "tests over from me?"),
            ("Tendai", "Sure, hand them over. Give me until the end of next week."),
            ("Bartek", "And are we actually dropping the Friday demo? People keep saying we will."),
            ("Astrid", "Not yet. Let's see how the next two sprints feel before anyone calls it."),
            ("Bartek", "What about sprint length? A few people wanted three weeks."),
            ("Astrid", "We're staying at two weeks, we tried three last year and everyone hated it. And one "
                       "action item for everyone: put your on-call availability in the shared calendar by "
                       "Wednesday."),
            ("Noor", "Assistant, what are the action items from this retro?"),
        ],
        "people": ["Astrid", "Tendai", "Noor", "Farhan", "Bartek"],
        "action_items": [
            ("Noor", "write up how to reset staging database", "", "volunteer", "voice"),
            ("Tendai", "take over flaky tests", "end of next week", "reassigned", "address"),
            (None, "on-call availability shared calendar", "Wednesday", "action_item_for", None),
        ],
        "decisions": [
            ("reviews are picked up within one working day", "reviews picked up working day"),
            ("sprints stay at two weeks", "sprints stay two weeks"),
        ],
        "open_questions": [("whether to drop the Friday demo", "drop friday demo")],
        "questions": [(14, "noor|staging", "tendai|flaky", "calendar|on-call|availability")],
        "non_items": [
            (10, "decision", "not_decided", "dropping friday demo"),
        ],
    },
    "design_one_to_one": {
        "kind": "one-on-one",
        "speakers": {"Folake": V_F3, "Ximena": V_F4},
        "turns": [
            ("Folake", "Thanks for making time, Ximena. How are you finding the new project?"),
            ("Ximena", "Mostly good. The client interviews are the best part, but the weekly report eats my "
                       "whole Friday."),
            ("Folake", "Then let's get it off your plate. I'd like you to write down what the report actually "
                       "needs, so the analytics team can take it over."),
            ("Ximena", "I can do that. When do you need it?"),
            ("Folake", "By the 14th would be great."),
            ("Ximena", "Okay. Oh, I was going to shadow the pricing workshop next week, but they've pushed it "
                       "to March, so scratch that."),
            ("Folake", "Fair enough. Have you given any thought to the conference in Lisbon?"),
            ("Ximena", "A little. If they accepted my talk, I'd need a week away from client work to prepare "
                       "it."),
            ("Folake", "We'll cross that bridge if we get there. The thing I can't answer yet is whether you "
                       "move up to senior at the spring review. It depends on budget."),
            ("Ximena", "Understood. Is there anything I should be doing in the meantime?"),
            ("Folake", "Keep doing what you're doing. I'll email the budget holder this week and get you a "
                       "straight answer."),
            ("Ximena", "Thanks. And these check-ins stay fortnightly rather than weekly?"),
            ("Folake", "Yes, fortnightly suits us both. Let's keep it that way."),
            ("Ximena", "Assistant, what's still open from this chat?"),
        ],
        "people": ["Folake", "Ximena"],
        "action_items": [
            ("Ximena", "write down what weekly report needs analytics team", "the 14th", "id_like_you_to",
             "address"),
            ("Folake", "email budget holder", "this week", "i_will", "voice"),
        ],
        "decisions": [("the check-ins stay fortnightly", "check-ins stay fortnightly")],
        "open_questions": [("whether Ximena moves up to senior at the spring review", "senior spring review")],
        "questions": [(13, "senior", "spring|review|budget")],
        "non_items": [
            (5, "action_item", "cancelled", "shadow pricing workshop"),
            (6, "action_item", "question", "conference lisbon"),
            (7, "action_item", "hypothetical", "week away prepare talk"),
        ],
    },
    "bakery_tills": {
        "kind": "sales call",
        "speakers": {"Priyanka": V_F2, "Gustavo": V_M7, "Aigerim": V_F4},
        "turns": [
            ("Priyanka", "Hi Gustavo, hi Aigerim, thanks for jumping on. You're looking at new tills for all "
                         "three bakeries, is that right?"),
            ("Gustavo", "That's right. The old ones crash every Saturday morning, which is exactly when we're "
                        "busiest."),
            ("Aigerim", "And we need the tills to talk to our stock sheet. Right now I count the croissants by "
                        "hand."),
            ("Priyanka", "Stock tracking is built in. I'll send over a quote for three sites, stock module "
                         "included, by Friday."),
            ("Gustavo", "What happens when the internet drops? Do the tills still take cards?"),
            ("Priyanka", "They do. They hold card payments offline for up to a day and send them when the "
                         "line's back."),
            ("Gustavo", "Good. Aigerim, can you pull last year's Saturday sales so Priyanka can size the plan?"),
            ("Aigerim", "Actually, Ruairi does our books, he'll have those figures much quicker than me. Let "
                        "Ruairi send them over tomorrow morning."),
            ("Priyanka", "Perfect. We also do hardware leasing, if paying for it all up front is too much."),
            ("Gustavo", "No, we'll buy the tills outright. I don't want another monthly bill."),
            ("Priyanka", "Understood. We usually install on a Monday, when you're closed?"),
            ("Gustavo", "Mondays, yes. What I haven't worked out is which shop goes first, Mill Street or the "
                        "one by the station."),
            ("Priyanka", "No rush on that. Assistant, what did Gustavo decide about paying for the tills?"),
            ("Aigerim", "Assistant, who's sending the Saturday sales figures, and when?"),
        ],
        "people": ["Priyanka", "Gustavo", "Aigerim", "Ruairi"],
        "action_items": [
            ("Priyanka", "send quote three sites stock module", "Friday", "i_will", "voice"),
            ("Ruairi", "send last year Saturday sales figures", "tomorrow morning", "reassigned", "name"),
        ],
        "decisions": [("buy the tills outright", "buy tills outright")],
        "open_questions": [("which shop gets the tills first, Mill Street or the one by the station",
                            "which shop first mill street station")],
        "questions": [(12, "outright|buy|buying"), (13, "ruairi", "tomorrow|morning")],
        "non_items": [
            (4, "action_item", "question", "internet drops cards"),
            (8, "action_item", "hypothetical", "hardware leasing"),
        ],
    },
    "washer_warranty": {
        "kind": "support call",
        "speakers": {"Dmitri": V_M3, "Wanjiru": V_F3},
        "turns": [
            ("Dmitri", "Thanks for calling Brightline Appliances, you're through to Dmitri. How can I help?"),
            ("Wanjiru", "Hi, it's Wanjiru. My washing machine stopped draining on Sunday, and it's only eight "
                        "months old."),
            ("Dmitri", "Sorry to hear that. Is there a code showing on the display?"),
            ("Wanjiru", "It flashes E21, and the water just sits in the drum."),
            ("Dmitri", "That's usually the drain pump. You're well within warranty, so we'll send an engineer "
                       "out to you. I've got Tuesday morning or Thursday afternoon."),
            ("Wanjiru", "Tuesday's good. Oh wait, no, I'm at work Tuesday. Can we make it Thursday afternoon?"),
            ("Dmitri", "Thursday afternoon, between one and five, that's booked. I'll text you a confirmation "
                       "tonight."),
            ("Wanjiru", "Will I have to pay for the call-out?"),
            ("Dmitri", "No, the warranty covers parts and labour. And if the engineer can't fix it on the day, "
                       "we'd look at replacing the machine."),
            ("Wanjiru", "Okay. In the meantime, should I try cleaning the filter myself?"),
            ("Dmitri", "Please don't open the filter while there's water in the drum, you'll flood the floor. "
                       "Leave that to the engineer."),
            ("Wanjiru", "Got it. Thanks, Dmitri."),
            ("Dmitri", "You're welcome. Assistant, when is the engineer visit, and what's the likely fault?"),
        ],
        "people": ["Dmitri", "Wanjiru"],
        "action_items": [
            (None, "send engineer drain pump", "Thursday afternoon", "we_will", None),
            ("Dmitri", "text confirmation", "tonight", "i_will", "voice"),
        ],
        "decisions": [("the engineer visits Thursday afternoon, not Tuesday", "engineer visit thursday afternoon")],
        "open_questions": [],
        "questions": [(12, "thursday", "pump|drain|E21")],
        "non_items": [
            (2, "action_item", "question", "code display"),
            (8, "action_item", "hypothetical", "replacing machine"),
            (10, "action_item", "negation", "open filter"),
        ],
    },
    "analyst_debrief": {
        "kind": "hiring debrief",
        "speakers": {"Marguerite": V_F2, "Chinedu": V_US, "Anahera": V_F4, "Ravindra": V_M7},
        "turns": [
            ("Marguerite", "Let's debrief on the two finalists for the data analyst role, Svetlana and "
                           "Joaquín. Chinedu, first impressions?"),
            ("Chinedu", "Svetlana was the strongest on SQL by a mile. Joaquín was warmer with stakeholders, "
                        "but he struggled with the case study."),
            ("Anahera", "Same read on the case study. Did either of them ask about working from home?"),
            ("Ravindra", "Svetlana did. She'd like two days a week at home, which is within policy."),
            ("Marguerite", "So, is everyone comfortable making the offer to Svetlana?"),
            ("Anahera", "Yes from me. She's the one."),
            ("Marguerite", "Then we offer Svetlana the job. Ravindra, you'll have until Wednesday to get the "
                           "offer letter to her, HR wants it out before the hiring freeze."),
            ("Ravindra", "Sure. What salary are we going in at?"),
            ("Marguerite", "That's the bit I can't tell you yet. Finance hasn't said whether we can go above "
                           "the midpoint of the band."),
            ("Chinedu", "I was going to ring Joaquín's references this afternoon, but there's no point now, so "
                        "I'll drop that."),
            ("Anahera", "He should still hear it from a person. I'll call Joaquín myself on Thursday, he "
                        "deserves a proper conversation."),
            ("Marguerite", "Agreed. And if Svetlana turns us down, we'd go back to the agency rather than offer "
                           "it to Joaquín."),
            ("Ravindra", "Makes sense. Assistant, who's calling Joaquín, and when?"),
            ("Chinedu", "Assistant, what did we decide about the analyst role?"),
        ],
        "people": ["Marguerite", "Chinedu", "Anahera", "Ravindra", "Svetlana", "Joaquín"],
        "action_items": [
            ("Ravindra", "offer letter Svetlana", "Wednesday", "indirect", "address"),
            ("Anahera", "call Joaquín", "Thursday", "i_will", "voice"),
        ],
        "decisions": [("offer the data analyst job to Svetlana", "offer svetlana job")],
        "open_questions": [("whether the salary can go above the midpoint of the band",
                            "salary above midpoint band")],
        "questions": [(12, "anahera", "thursday"), (13, "svetlana", "offer")],
        "non_items": [
            (2, "action_item", "question", "working from home"),
            (9, "action_item", "cancelled", "ring references"),
            (11, "decision", "hypothetical", "back to agency"),
        ],
    },
    "staff_meeting_roof": {
        "kind": "school",
        "speakers": {"Siobhan": V_F3, "Mateus": V_M2, "Keiko": V_F2, "Adebayo": V_M3},
        "turns": [
            ("Siobhan", "Right, thanks for staying late. Three things tonight: sports day, the reading scheme, "
                        "and the leak in the art room."),
            ("Mateus", "Sports day first, then. The forecast for the 20th looks grim."),
            ("Keiko", "We've moved it once already. Do we honestly want to move it again?"),
            ("Siobhan", "No. We keep the 20th, and if it pours we'll run the races in the hall instead."),
            ("Mateus", "Fine. Adebayo, you've got the marshal rota, haven't you?"),
            ("Adebayo", "I did, but I'm away on the Year Six residential that week. Keiko, would you mind "
                        "taking the marshal rota?"),
            ("Keiko", "Go on then. I'll have it up on the staffroom board by Monday."),
            ("Siobhan", "Thank you. Reading scheme: the new books arrive next week. Mateus to label them and "
                        "get them into classrooms before half term."),
            ("Mateus", "Before half term? I thought we said the end of the month."),
            ("Siobhan", "You're right, sorry. End of the month is fine, half term's too tight."),
            ("Keiko", "Are we keeping the old reading records, or starting everyone fresh?"),
            ("Siobhan", "I genuinely don't know. I need to check with the trust, so that one stays open."),
            ("Adebayo", "And the art room?"),
            ("Siobhan", "The council won't send anyone until after Easter, so art moves into the library till "
                        "the roof's fixed."),
            ("Keiko", "Assistant, who's doing the marshal rota now?"),
            ("Mateus", "Assistant, when do the new reading books need to be in classrooms?"),
        ],
        "people": ["Siobhan", "Mateus", "Keiko", "Adebayo"],
        "action_items": [
            ("Keiko", "marshal rota", "Monday", "reassigned", "address"),
            ("Mateus", "label new reading books classrooms", "end of the month", "x_to", "name"),
        ],
        "decisions": [
            ("sports day stays on the 20th, in the hall if it rains", "sports day 20th"),
            ("art moves into the library until the roof is fixed", "art moves library"),
        ],
        "open_questions": [("keep the old reading records or start everyone fresh", "old reading records fresh")],
        "questions": [(14, "keiko"), (15, "month")],
        "non_items": [
            (2, "action_item", "question", "move it again"),
        ],
    },
    "ward7_handover": {
        "kind": "ward",
        "speakers": {"Leilani": V_F4, "Nkechi": V_F2, "Hamid": V_US},
        "turns": [
            ("Leilani", "Morning. Nkechi, off you go with handover."),
            ("Nkechi", "Bed two, the hip replacement, settled night, pain score three. Physio want her up and "
                       "walking today."),
            ("Hamid", "Is she still on the morphine pump?"),
            ("Nkechi", "No, that came down at two this morning. She's on oral pain relief now."),
            ("Leilani", "Good. Hamid, please get bed two's physio session booked for this morning."),
            ("Nkechi", "Bed five is the one to watch. His blood sugar dropped to three point one at four. He's "
                       "had glucose and he's back up to six."),
            ("Leilani", "Right, we'll check his sugars every two hours until the diabetes team has seen him. "
                        "Has he been referred?"),
            ("Nkechi", "Not yet. I meant to, but the night ran away from me, sorry."),
            ("Leilani", "Don't worry. I'll do the diabetes referral once the bleep calms down."),
            ("Hamid", "Actually, leave the referral with me, Leilani. I've got a quiet half hour at ten and "
                      "you've got the bed meeting."),
            ("Leilani", "Even better, thank you. What about bed nine?"),
            ("Nkechi", "Bed nine was meant to go home today, but the consultant stopped the discharge last "
                       "night, so don't book his transport."),
            ("Leilani", "Okay. He stays on IV antibiotics for another forty-eight hours then, that's what the "
                        "consultant wrote."),
            ("Hamid", "What nobody's told me is whether his family know the discharge is off."),
            ("Leilani", "Good point, I don't know either. Assistant, what's the plan for bed five?"),
            ("Nkechi", "Assistant, who is doing the diabetes referral?"),
        ],
        "people": ["Leilani", "Nkechi", "Hamid"],
        "action_items": [
            ("Hamid", "book physio bed two", "this morning", "imperative", "address"),
            (None, "check sugars every two hours bed five", "", "we_will", None),
            ("Hamid", "diabetes referral", "ten", "reassigned", "voice"),
        ],
        "decisions": [("bed nine stays on IV antibiotics for another forty-eight hours",
                       "IV antibiotics forty-eight hours")],
        "open_questions": [("whether bed nine's family know the discharge is off", "family know discharge off")],
        "questions": [(14, "sugar|sugars|glucose", "diabetes|two hours|2 hours"), (15, "hamid")],
        "non_items": [
            (2, "action_item", "question", "morphine pump"),
            (11, "action_item", "cancelled", "transport home bed nine"),
        ],
    },
    "site_morning_brief": {
        "kind": "building site",
        "speakers": {"Tomasz": V_M7, "Olumide": V_M3, "Gráinne": V_F3, "Vikram": V_M2},
        "turns": [
            ("Tomasz", "Morning, all. Quick briefing before we start. The crane's booked from seven till noon, "
                       "so the roof trusses go up first thing."),
            ("Vikram", "Are the trusses actually here? I didn't see a lorry."),
            ("Tomasz", "They came in at six, they're stacked round the back."),
            ("Gráinne", "The building inspector's coming Thursday to look at the drainage, and the east trench "
                        "is full of rainwater."),
            ("Tomasz", "Olumide, I need you to get that trench pumped out before the inspection. And Gráinne to "
                       "photograph the pipe runs for the inspector's file."),
            ("Olumide", "No problem, I'll get the pump on it Wednesday afternoon."),
            ("Gráinne", "One more thing. The tag on the north scaffold ran out yesterday."),
            ("Tomasz", "Then nobody goes up the north scaffold until it's been inspected again. Not "
                       "negotiable."),
            ("Vikram", "I'll ring the scaffolders at break and try to get them out today."),
            ("Gráinne", "If they can't come today, we could shift the bricklayers round to the south side."),
            ("Tomasz", "Maybe. We'll see what they say. And the skip swap's off today, the skip firm cancelled "
                       "on us this morning."),
            ("Gráinne", "Typical. So when are they coming instead?"),
            ("Tomasz", "No idea, they wouldn't give me a day. That's still up in the air."),
            ("Olumide", "Assistant, what's the situation with the north scaffold?"),
            ("Vikram", "Assistant, when is the building inspector coming?"),
        ],
        "people": ["Tomasz", "Olumide", "Gráinne", "Vikram"],
        "action_items": [
            ("Olumide", "pump out east trench", "Wednesday afternoon, before the inspection", "id_like_you_to",
             "address"),
            ("Gráinne", "photograph pipe runs inspector file", "before the inspection", "x_to", "name"),
            ("Vikram", "ring scaffolders north scaffold", "today", "i_will", "voice"),
        ],
        "decisions": [("nobody goes up the north scaffold until it is inspected again",
                       "nobody north scaffold inspected")],
        "open_questions": [("when the skip firm will come to swap the skip", "when skip firm coming")],
        "questions": [(13, "inspected|inspection|inspect", "vikram|scaffolders"), (14, "thursday")],
        "non_items": [
            (1, "action_item", "question", "trusses lorry"),
            (9, "action_item", "hypothetical", "bricklayers south side"),
            (10, "action_item", "cancelled", "skip swap"),
        ],
    },
    "kitchen_preshift": {
        "kind": "kitchen",
        "speakers": {"Babajide": V_US, "Mireille": V_F4, "Kaito": V_M7, "Esperanza": V_F3},
        "turns": [
            ("Babajide", "Okay, listen up. Ninety covers tonight, including a table of twelve at eight."),
            ("Mireille", "The fish delivery came up short, chef. We've got halibut for maybe twenty portions."),
            ("Babajide", "Then halibut comes off once we've sold twenty, and we push the lamb. Mireille, let "
                         "front of house know before service."),
            ("Kaito", "Chef, is the twelve-top on the set menu or ordering off the card?"),
            ("Babajide", "Set menu. Esperanza, can you do the birthday cake for that table, with the candles "
                         "and the message?"),
            ("Esperanza", "Already on it. And I'm not doing soufflés tonight. The pastry oven's running hot and "
                          "I don't trust it."),
            ("Babajide", "Fair. Let's have Kaito ring the oven engineer first thing tomorrow."),
            ("Kaito", "Yes, chef. Shouldn't we deep clean the extraction hood as well? It's been three weeks."),
            ("Babajide", "We'll all do the hood after service on Sunday."),
            ("Mireille", "If walk-ins turn up after nine, are we taking them?"),
            ("Babajide", "Depends how the twelve-top goes. Let's see how the night runs before we say yes or "
                         "no."),
            ("Mireille", "Assistant, what's coming off the menu tonight, and what are we pushing instead?"),
            ("Kaito", "Assistant, who's calling the oven engineer, and when?"),
        ],
        "people": ["Babajide", "Mireille", "Kaito", "Esperanza"],
        "action_items": [
            ("Mireille", "tell front of house halibut", "before service", "imperative", "address"),
            ("Esperanza", "birthday cake candles message", "tonight", "could_you", "address"),
            ("Kaito", "ring oven engineer", "first thing tomorrow", "lets_have", "name"),
            (None, "deep clean extraction hood", "Sunday after service", "we_will", None),
        ],
        "decisions": [("halibut comes off once twenty are sold, and the lamb is pushed",
                       "halibut off twenty push lamb")],
        "open_questions": [("whether to take walk-ins after nine", "walk-ins after nine")],
        "questions": [(11, "halibut", "lamb"), (12, "kaito", "tomorrow|morning")],
        "non_items": [
            (3, "action_item", "question", "set menu card"),
            (5, "action_item", "negation", "souffles tonight"),
            (9, "decision", "not_decided", "walk-ins after nine"),
        ],
    },
    "food_bank_committee": {
        "kind": "committee",
        "speakers": {"Hyacinth": V_F2, "Oksana": V_F3, "Bashir": V_M3, "Rangi": V_US},
        "turns": [
            ("Hyacinth", "Let's get going. Lucía sends her apologies, she's stuck at work, but she emailed her "
                         "notes."),
            ("Oksana", "Donations are down about a third since September. The shelves were nearly bare on "
                       "Saturday."),
            ("Bashir", "The supermarket on Kingsway offered a collection point back in the summer. Did anyone "
                       "ever follow that up?"),
            ("Rangi", "Not that I know of. Leave it with me, I know the store manager there."),
            ("Hyacinth", "Thanks, Rangi. Can you report back at the next meeting?"),
            ("Oksana", "What about a winter appeal in the local paper?"),
            ("Hyacinth", "Yes, let's run one. Lucía will write it, she offered in her notes, and it needs to go "
                         "out by the first of December."),
            ("Bashir", "Should we start opening Wednesday evenings too?"),
            ("Hyacinth", "We just don't have the volunteers for it. So no Wednesday evenings this winter."),
            ("Oksana", "On the van, I was going to get quotes for a new one, but the church has offered us "
                       "theirs on Saturdays, so I'll stop chasing quotes."),
            ("Rangi", "Brilliant. But who insures our drivers in the church van? Is it on their policy or ours?"),
            ("Hyacinth", "Good question, I honestly don't know. Bashir, you look after insurance, could you "
                         "find out by Friday?"),
            ("Bashir", "I'm away Thursday and Friday. Could I come back to you on Monday instead?"),
            ("Hyacinth", "Monday's fine."),
            ("Oksana", "Assistant, what are the action items so far?"),
            ("Rangi", "Assistant, when does the winter appeal need to go out?"),
        ],
        "people": ["Hyacinth", "Oksana", "Bashir", "Rangi", "Lucía"],
        "action_items": [
            ("Rangi", "follow up supermarket Kingsway collection point", "next meeting", "volunteer", "voice"),
            ("Lucía", "write winter appeal", "the first of December", "x_will", "name"),
            ("Bashir", "find out church van insurance", "Monday", "could_you", "address"),
        ],
        "decisions": [
            ("run a winter appeal in the local paper", "winter appeal local paper"),
            ("no Wednesday evening opening this winter", "wednesday evenings opening"),
        ],
        "open_questions": [("whether the church van is on the church's insurance policy or the food bank's",
                            "church van insurance policy")],
        "questions": [(14, "rangi|supermarket|kingsway", "lucia|appeal", "bashir|insurance"), (15, "december")],
        "non_items": [
            (8, "action_item", "negation", "opening wednesday evenings"),
            (9, "action_item", "cancelled", "get quotes"),
        ],
    },
    "house_move_family": {
        "kind": "family",
        "speakers": {"Amara": V_F4, "Dariusz": V_M2, "Naledi": V_F2, "Ilya": V_M7},
        "turns": [
            ("Amara", "Okay, family meeting. The removal van's booked for Saturday the 9th, so we've got two "
                      "weeks."),
            ("Dariusz", "About that. The removal firm rang this morning, they can't do the 9th any more. It's "
                        "Sunday the 10th now."),
            ("Naledi", "So does that mean I can go to Priya's party on the 9th?"),
            ("Amara", "We'll see. Ilya, please clear out your room and box up everything you're keeping by next "
                      "weekend."),
            ("Ilya", "Fine. Are we taking the trampoline?"),
            ("Dariusz", "No, the trampoline stays here. The new garden's too small, we went through this "
                        "already."),
            ("Amara", "Somebody has to sort out redirecting the post."),
            ("Naledi", "I'll do it online, it only takes ten minutes."),
            ("Dariusz", "It needs a card and an adult's name, love. I'll do the post. Naledi, you can ring the "
                        "broadband company about the new line instead."),
            ("Naledi", "Fine, I'll ring them after school tomorrow."),
            ("Ilya", "What if the buyers pull out before the tenth?"),
            ("Amara", "Then we'd be stuck, but the solicitor says that's very unlikely. Let's not go there."),
            ("Dariusz", "We still haven't worked out who's having the cat on moving day."),
            ("Amara", "My mum might. I'll ask her tomorrow."),
            ("Naledi", "Assistant, when is the removal van coming now?"),
            ("Ilya", "Assistant, who's redirecting the post?"),
        ],
        "people": ["Amara", "Dariusz", "Naledi", "Ilya", "Priya"],
        "action_items": [
            ("Ilya", "clear out room box up", "next weekend", "imperative", "address"),
            ("Dariusz", "redirect post", "", "reassigned", "voice"),
            ("Naledi", "ring broadband company new line", "tomorrow after school", "indirect", "address"),
            ("Amara", "ask mum about cat", "tomorrow", "i_will", "voice"),
        ],
        "decisions": [("the trampoline stays behind", "trampoline stays")],
        "open_questions": [("who has the cat on moving day", "cat moving day")],
        "questions": [(14, "sunday|10th|tenth"), (15, "dariusz")],
        "non_items": [
            (2, "action_item", "question", "priya party"),
            (4, "action_item", "question", "taking trampoline"),
            (10, "action_item", "hypothetical", "buyers pull out"),
        ],
    },
}
