"""The `dev` split of the evaluation set: conversations to tune the understanding code on.

Pure data in the format make_eval.py's docstring describes.  The first eight were the whole set
before the split (tuned on, so they can never be test conversations).
"""

V_US, V_M7, V_F3, V_M3 = "en-us", "en+m7", "en-us+f3", "en+m3"
V_F4, V_M2, V_F2 = "en+f4", "en-us+m2", "en+f2"

CONVERSATIONS: dict[str, dict] = {
    "standup": {
        "kind": "stand-up",
        "speakers": {"Anna": V_F3, "Tom": V_M7, "Mike": V_US},
        "turns": [
            ("Anna", "Good morning. Let's do the stand-up. Tom, you go first."),
            ("Tom", "Yesterday I finished the login page. Today I will fix the password reset bug. "
                   "It will be done by Wednesday."),
            ("Anna", "Thanks, Tom. Mike, how about you?"),
            ("Mike", "I am still working on the mobile app. "
                    "I am blocked, because I have no access to the test server."),
            ("Anna", "I will ask the admin team for your access today."),
            ("Mike", "Thank you, Anna. After that I will write the release notes by Friday."),
            ("Anna", "One open question is whether we ship the mobile app this month or next month."),
            ("Tom", "Can we decide that on Monday?"),
            ("Anna", "Yes. Assistant, what is Tom working on today?"),
            ("Mike", "Assistant, who is blocked and why?"),
        ],
        "people": ["Anna", "Tom", "Mike"],
        "action_items": [
            ("Tom", "fix password reset bug", "Wednesday", "i_will", "voice"),
            ("Anna", "ask admin team access", "today", "i_will", "voice"),
            ("Mike", "write release notes", "Friday", "i_will", "voice"),
        ],
        "decisions": [],
        "open_questions": [("ship the mobile app this month or next month", "ship mobile app month")],
        "questions": [(8, "password", "reset|bug"), (9, "mike", "access|server")],
        "non_items": [],
    },
    "planning": {
        "kind": "planning",
        "speakers": {"Linda": V_F3, "Mark": V_M3, "Peter": V_M7, "Sarah": V_US},
        "turns": [
            ("Linda", "Welcome to the planning meeting for the spring campaign. We have three things to decide today."),
            ("Mark", "First, the budget. I suggest we spend twenty thousand dollars on online ads."),
            ("Sarah", "That sounds right. Print ads did not work last year."),
            ("Linda", "Then we decided: twenty thousand dollars for online ads, and no print ads."),
            ("Peter", "Second, the start date. I think the campaign should start on the first of April."),
            ("Linda", "Agreed, the campaign starts on the first of April. "
                     "Peter, please book the video studio by next Tuesday."),
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
            ("Peter", "book video studio", "next Tuesday", "imperative", "address"),
            ("Sarah", "write email newsletter", "end of March", "could_you", "address"),
        ],
        "decisions": [
            ("twenty thousand dollars for online ads, no print ads", "online ads"),
            ("the campaign starts on the first of April", "campaign start april"),
        ],
        "open_questions": [("whether to keep the old logo", "logo")],
        "questions": [(11, "twenty|20,000|20000|$20", "online"), (12, "peter")],
        "non_items": [],
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
            ("Emma", "Then the router is broken. We decided to replace it. "
                    "I will send you a new router, and it will arrive on Thursday."),
            ("James", "Will I get a refund for the days without internet?"),
            ("Emma", "I cannot promise that now. "
                    "My manager, Daniel, will decide about the refund and call you back tomorrow."),
            ("James", "Okay, thank you. Assistant, when will the new router arrive?"),
            ("Emma", "Assistant, what are the action items from this call?"),
        ],
        "people": ["Emma", "James", "Daniel"],
        "action_items": [
            ("Emma", "send new router", "Thursday", "i_will", "voice"),
            ("Daniel", "decide refund call back", "tomorrow", "x_will", "name"),
        ],
        "decisions": [("replace the broken router", "replace router")],
        "open_questions": [("whether James gets a refund for the days without internet", "refund")],
        "questions": [(9, "thursday"), (10, "router", "refund")],
        "non_items": [],
    },
    "interview": {
        "kind": "interview",
        "speakers": {"Rachel": V_US, "David": V_M3},
        "turns": [
            ("Rachel", "Hello David, thanks for coming in. I am Rachel, and I lead the data team. "
                      "Can you tell me about your last job?"),
            ("David", "Sure. For four years I worked at a bank as a data analyst. I built reports in Python and SQL."),
            ("Rachel", "What was your biggest project there?"),
            ("David", "I moved all our reports to a new cloud database. "
                     "It saved the bank about thirty percent in costs."),
            ("Rachel", "Impressive. Why do you want to leave?"),
            ("David", "I want to work on machine learning, and the bank does not do that."),
            ("Rachel", "Do you have any questions for me?"),
            ("David", "How big is the team, and can I work from home?"),
            ("Rachel", "We are six people, and you can work from home two days a week. "
                      "I will send you the coding test tomorrow. David, please return it within one week."),
            ("David", "Great, I will return the coding test within a week."),
            ("Rachel", "Assistant, where did David work before?"),
            ("David", "Assistant, how many days a week can I work from home?"),
        ],
        "people": ["Rachel", "David"],
        "action_items": [
            ("Rachel", "send coding test", "tomorrow", "i_will", "voice"),
            ("David", "return coding test", "within one week", "imperative", "address"),
        ],
        "decisions": [],
        "open_questions": [],
        "questions": [(10, "bank"), (11, "two|2")],
        "non_items": [],
    },
    "lecture": {
        "kind": "lecture",
        "speakers": {"Professor Hill": V_M7, "Nina": V_F3, "Omar": V_US},
        "turns": [
            ("Professor Hill", "Good afternoon. Today's lecture is about photosynthesis. Plants take in carbon "
                              "dioxide and water, and with the energy of sunlight they make sugar and oxygen."),
            ("Professor Hill", "This happens in the chloroplasts, which contain a green pigment called chlorophyll. "
                              "The light reactions make energy carriers, and the Calvin cycle uses them to build "
                              "sugar."),
            ("Professor Hill", "For next week, everyone please read chapter five. The quiz is on Monday."),
            ("Nina", "Professor Hill, is the Calvin cycle also on the quiz?"),
            ("Professor Hill", "Yes, Nina, the Calvin cycle will be on the quiz."),
            ("Omar", "Can we use our notes during the quiz?"),
            ("Professor Hill", "No notes, Omar. But I will post the slides online tonight."),
            ("Nina", "Why are leaves green and not black, if black absorbs more light?"),
            ("Professor Hill", "That is an open question. Scientists still debate it. "
                              "We will come back to it next week."),
            ("Omar", "Assistant, what do plants make from carbon dioxide and water?"),
            ("Nina", "Assistant, when is the quiz?"),
        ],
        "people": ["Professor Hill", "Nina", "Omar"],
        "action_items": [
            (None, "read chapter five", "next week", "imperative", None),
            ("Professor Hill", "post slides online", "tonight", "i_will", "voice"),
        ],
        "decisions": [("no notes during the quiz", "notes quiz")],
        "open_questions": [("why leaves are green and not black", "leaves green black")],
        "questions": [(9, "sugar|glucose", "oxygen"), (10, "monday")],
        "non_items": [],
    },
    "brainstorm": {
        "kind": "brainstorm",
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
            ("Chris", "Okay, I will check the name by Friday. "
                     "Ben, can you draw some screen sketches by next Wednesday?"),
            ("Ben", "Sure, I will draw the sketches by Wednesday."),
            ("Ben", "Assistant, what open questions do we have?"),
        ],
        "people": ["Julia", "Ben", "Chris"],
        "action_items": [
            ("Chris", "check name Fridge Chef", "Friday", "imperative", "address"),
            ("Ben", "draw screen sketches", "next Wednesday", "could_you", "address"),
        ],
        "decisions": [("the first version only supports English", "first version english")],
        "open_questions": [
            ("how the app knows what is in the fridge", "app know fridge"),
            ("whether people would pay or it is free with ads", "pay free ads"),
            ("phones first or the web", "phones web"),
        ],
        "questions": [(11, "fridge", "pay|free|ads", "phone|phones|web")],
        "non_items": [],
    },
    "corrections": {
        "kind": "planning",
        "speakers": {"Karen": V_F3, "Steve": V_M7, "Paul": V_US},
        "turns": [
            ("Karen", "Let's plan the office move. Steve, please order the moving boxes by Thursday."),
            ("Steve", "No, Friday, not Thursday. The supplier is closed on Thursday."),
            ("Karen", "Right, Friday then. Paul, you will rent the truck for the twelfth of May."),
            ("Paul", "Sorry, a correction: the move is on the nineteenth of May, not the twelfth."),
            ("Karen", "Yes, you are right. So Paul rents the truck for the nineteenth of May."),
            ("Steve", "Who cleans the old office?"),
            ("Karen", "I will hire a cleaning company. "
                     "Actually, no, Steve will do that, because he knows the building manager."),
            ("Steve", "Fine, I will hire the cleaning company by next Monday."),
            ("Karen", "We decided that the new office opens on the twentieth of May."),
            ("Paul", "Assistant, when will Steve order the boxes?"),
            ("Karen", "Assistant, who hires the cleaning company?"),
        ],
        "people": ["Karen", "Steve", "Paul"],
        "action_items": [
            ("Steve", "order moving boxes", "Friday", "imperative", "address"),
            ("Paul", "rent truck", "nineteenth of May", "x_will", "address"),
            ("Steve", "hire cleaning company", "next Monday", "reassigned", "name"),
        ],
        "decisions": [
            ("the move is on the nineteenth of May", "move nineteenth may"),
            ("the new office opens on the twentieth of May", "office open twentieth"),
        ],
        "open_questions": [],
        "questions": [(9, "friday"), (10, "steve")],
        "non_items": [],
    },
    "offtopic": {
        "kind": "review",
        "speakers": {"Helen": V_F3, "Greg": V_M3, "Victor": V_M7},
        "turns": [
            ("Helen", "Okay, let's review the bug list before the release."),
            ("Greg", "Before we start, did anyone watch the football game last night?"),
            ("Victor", "Yes, what a match! The goalkeeper saved two penalties in the last minutes."),
            ("Greg", "I could not believe it. My brother was at the stadium, and he said the noise was incredible."),
            ("Victor", "And the weather was terrible. It rained for the whole second half."),
            ("Greg", "I also started cooking Italian food this weekend. I made fresh pasta for the first time."),
            ("Victor", "Nice, I love pasta. My favorite is lasagna."),
            ("Helen", "Okay, back to work. The payment bug is the most important one. "
                     "Greg, please fix the payment bug by tomorrow."),
            ("Greg", "Sure, I will fix the payment bug by tomorrow morning."),
            ("Helen", "Victor, can you update the user guide before the release on Friday?"),
            ("Victor", "Yes, I will update the user guide by Friday."),
            ("Helen", "We decided to move the dark mode feature to the next release."),
            ("Helen", "Assistant, what are the action items?"),
        ],
        "people": ["Helen", "Greg", "Victor"],
        "action_items": [
            ("Greg", "fix payment bug", "tomorrow", "imperative", "address"),
            ("Victor", "update user guide", "Friday", "could_you", "address"),
        ],
        "decisions": [("move the dark mode feature to the next release", "dark mode next release")],
        "open_questions": [],
        "questions": [(12, "greg", "payment", "victor", "guide")],
        "non_items": [],
    },
    "ops_standup": {
        "kind": "stand-up",
        "speakers": {"Carla": V_F4, "Ravi": V_M3, "Xin": V_F3},
        "turns": [
            ("Carla", "Morning, everyone, quick stand-up. Ravi, you start."),
            ("Ravi", "Yesterday I got the search service onto staging. "
                    "Today I'm chasing the memory leak in the indexer."),
            ("Carla", "Great. Ravi, can you write up the leak in the incident doc by Thursday?"),
            ("Ravi", "Sure, Thursday works."),
            ("Xin", "I finished the billing export. Carla, can you hear me okay? My headset keeps cutting out."),
            ("Carla", "Yes, you're fine, Xin."),
            ("Xin", "Good. Today I'm helping support with the refund tickets. We have about forty open."),
            ("Carla", "Can someone renew the SSL certificate? It expires on the 14th."),
            ("Xin", "I'll do it."),
            ("Carla", "Thanks. In an ideal world we would move the whole cluster to the new region this month, but "
                     "that is not happening."),
            ("Ravi", "Assistant, who is renewing the certificate?"),
            ("Carla", "Assistant, how many refund tickets are open?"),
        ],
        "people": ["Carla", "Ravi", "Xin"],
        "action_items": [
            ("Ravi", "write up leak incident doc", "Thursday", "could_you", "address"),
            ("Xin", "renew SSL certificate", "14th", "volunteer", "voice"),
        ],
        "decisions": [],
        "open_questions": [],
        "questions": [(10, "xin"), (11, "forty|40")],
        "non_items": [
            (4, "action_item", "question", "hear headset"),
            (9, "action_item", "hypothetical", "move cluster region"),
        ],
    },
    "roadmap": {
        "kind": "planning",
        "speakers": {"Siobhan": V_F3, "Marcus": V_M7, "Priya": V_F2, "Kenji": V_M2},
        "turns": [
            ("Siobhan", "Let's lock the roadmap for next quarter."),
            ("Marcus", "The big one is offline mode. Customers keep asking for it."),
            ("Siobhan", "Agreed. We will build offline mode in the next release."),
            ("Priya", "Then the sync protocol has to be designed first. Action item for Kenji: "
                     "draft the sync protocol by the end of the month."),
            ("Kenji", "Okay, I can have a draft by the thirtieth."),
            ("Marcus", "What about the tablet layout? Did we decide to drop it?"),
            ("Siobhan", "No, we haven't decided that. It stays open until we see the usage numbers."),
            ("Priya", "Marcus to update the pricing page once offline mode is announced."),
            ("Siobhan", "And let's have Priya own the beta programme."),
            ("Priya", "Happy to. I'll recruit twenty-five beta testers by mid-March."),
            ("Kenji", "Assistant, what did we decide about offline mode?"),
            ("Marcus", "Assistant, who owns the beta programme?"),
        ],
        "people": ["Siobhan", "Marcus", "Priya", "Kenji"],
        "action_items": [
            ("Kenji", "draft sync protocol", "end of the month", "action_item_for", "name"),
            ("Marcus", "update pricing page", "", "x_to", "name"),
            ("Priya", "own beta programme", "", "lets_have", "name"),
            ("Priya", "recruit twenty-five beta testers", "mid-March", "i_will", "voice"),
        ],
        "decisions": [("build offline mode in the next release", "offline mode next release")],
        "open_questions": [("whether to drop the tablet layout", "tablet layout")],
        "questions": [(10, "offline", "release"), (11, "priya")],
        "non_items": [(5, "decision", "not_decided", "drop tablet layout")],
    },
    "retro": {
        "kind": "retro",
        "speakers": {"Zoë": V_F4, "Tomás": V_M3, "Hannah": V_F3},
        "turns": [
            ("Zoë", "Welcome to the retro. What went well this sprint?"),
            ("Tomás", "The new review checklist helped. "
                     "We merged thirty-two pull requests, almost double the sprint before."),
            ("Hannah", "What didn't go well was the flaky tests. We lost maybe two days to them."),
            ("Zoë", "Hannah, I'd like you to collect the flaky tests into one list before the next sprint planning."),
            ("Hannah", "Will do."),
            ("Tomás", "I was going to rewrite the test runner, but let's not. It's too big for now."),
            ("Zoë", "Agreed, no rewrite. We decided to keep the current runner."),
            ("Tomás", "Zoë, did you see the message from the design team?"),
            ("Zoë", "Yes, I saw it. They're fine with the dates."),
            ("Hannah", "One more thing. The release checklist is out of date. "
                      "Tomás, please update it by Friday the 9th."),
            ("Zoë", "Tomás is on holiday that week. Actually, let me take that one instead."),
            ("Tomás", "Thanks, Zoë."),
            ("Hannah", "Assistant, who updates the release checklist?"),
            ("Tomás", "Assistant, how many pull requests did we merge?"),
        ],
        "people": ["Zoë", "Tomás", "Hannah"],
        "action_items": [
            ("Hannah", "collect flaky tests list", "before next sprint planning", "id_like_you_to", "address"),
            ("Zoë", "update release checklist", "Friday the 9th", "reassigned", "voice"),
        ],
        "decisions": [("keep the current test runner", "keep current runner")],
        "open_questions": [],
        "questions": [(12, "zoë"), (13, "thirty-two|32")],
        "non_items": [
            (5, "action_item", "cancelled", "rewrite test runner"),
            (7, "action_item", "question", "message design team"),
        ],
    },
    "one_on_one": {
        "kind": "one-on-one",
        "speakers": {"Grace": V_F3, "Oluwaseun": V_M7},
        "turns": [
            ("Grace", "Thanks for making time, Oluwaseun. How are you finding the new team?"),
            ("Oluwaseun", "Mostly good. The on-call rotation is heavy, though. I was paged six times last week."),
            ("Grace", "That's too many. I'll raise the paging volume with the platform lead on Wednesday."),
            ("Oluwaseun", "Thank you. I'd also like to do the cloud architecture course this autumn."),
            ("Grace", "Sounds good. The training budget is fifteen hundred pounds per person this year."),
            ("Oluwaseun", "The course is about twelve hundred, so that fits."),
            ("Grace", "Then send me the course link and the dates by the end of the week, Oluwaseun."),
            ("Oluwaseun", "Will do. Should I keep mentoring the interns as well?"),
            ("Grace", "If we had more people, you could hand that off, but for now please keep going."),
            ("Oluwaseun", "Okay. Grace, are you still moving to the Dublin office?"),
            ("Grace", "Not until next year. Nothing changes for you."),
            ("Oluwaseun", "Assistant, what is the training budget per person?"),
            ("Grace", "Assistant, what did I promise to do?"),
        ],
        "people": ["Grace", "Oluwaseun"],
        "action_items": [
            ("Grace", "raise paging volume platform lead", "Wednesday", "i_will", "voice"),
            ("Oluwaseun", "send course link dates", "end of the week", "imperative", "address"),
        ],
        "decisions": [],
        "open_questions": [],
        "questions": [(11, "fifteen hundred|1,500|1500|£1500|£1,500"), (12, "paging|paged")],
        "non_items": [
            (8, "action_item", "hypothetical", "hand off mentoring"),
            (9, "action_item", "question", "moving Dublin office"),
        ],
    },
    "sales_scanners": {
        "kind": "sales call",
        "speakers": {"Rebecca": V_F4, "José": V_M2, "Liam": V_M3},
        "turns": [
            ("Rebecca", "Hi José, thanks for joining. I'm Rebecca, and Liam from our solutions team is here too."),
            ("José", "Hi, both. We run nine warehouses, and we're looking to replace our scanning system."),
            ("Liam", "How many handheld scanners do you use today?"),
            ("José", "Around three hundred and fifty, across all the sites."),
            ("Rebecca", "Our standard plan is eighteen euros per device per month, with a discount above two hundred "
                       "devices."),
            ("José", "Can you get me the contract by Monday, Rebecca? Our board meets on Tuesday."),
            ("Rebecca", "Yes, you'll have it Monday morning."),
            ("Liam", "I'll set up a demo unit for your Porto warehouse next week."),
            ("José", "Perfect. In an ideal world we'd roll out to all nine sites at once, but realistically we'll "
                    "start with two."),
            ("Rebecca", "Makes sense. José, can you see the pricing slide I just shared?"),
            ("José", "Yes, I can see it."),
            ("José", "Assistant, what is the price per device?"),
            ("Rebecca", "Assistant, who is sending the contract and when?"),
        ],
        "people": ["Rebecca", "José", "Liam"],
        "action_items": [
            ("Rebecca", "send contract", "Monday", "could_you", "address"),
            ("Liam", "set up demo unit Porto warehouse", "next week", "i_will", "voice"),
        ],
        "decisions": [("start the roll-out with two sites", "start two sites")],
        "open_questions": [],
        "questions": [(11, "eighteen|18", "month"), (12, "rebecca", "monday")],
        "non_items": [
            (8, "action_item", "hypothetical", "roll out nine sites"),
            (9, "action_item", "question", "see pricing slide"),
        ],
    },
    "helpdesk_printer": {
        "kind": "support call",
        "speakers": {"Amara": V_F3, "Björn": V_M7},
        "turns": [
            ("Amara", "IT help desk, this is Amara. What's going on?"),
            ("Björn", "Hi Amara, it's Björn from accounts. "
                     "The printer on the third floor jams on every job since this morning."),
            ("Amara", "Have you tried the other tray?"),
            ("Björn", "Yes, both trays jam. And we have to print the payroll on the twenty-eighth."),
            ("Amara", "Okay. I'll log a ticket with the vendor today. "
                     "Their technician usually comes within two working days."),
            ("Björn", "Could you also get us a temporary printer until then?"),
            ("Amara", "Yes, I'll bring the spare one up from the fourth floor after lunch."),
            ("Björn", "Great. Should we cancel the payroll run?"),
            ("Amara", "No, don't cancel anything. The spare printer can handle it."),
            ("Björn", "Assistant, when is the technician coming?"),
            ("Amara", "Assistant, what did I promise Björn?"),
        ],
        "people": ["Amara", "Björn"],
        "action_items": [
            ("Amara", "log ticket vendor", "today", "i_will", "voice"),
            ("Amara", "bring spare printer", "after lunch", "could_you", "voice"),
        ],
        "decisions": [],
        "open_questions": [],
        "questions": [(9, "two|2", "day|days"), (10, "ticket|vendor", "spare|printer")],
        "non_items": [(7, "action_item", "question", "cancel payroll run")],
    },
    "panel_interview": {
        "kind": "interview",
        "speakers": {"Farah": V_F2, "Dmitri": V_M3, "Paolo": V_M2},
        "turns": [
            ("Farah", "Dmitri, welcome. I'm Farah, the engineering manager, and this is Paolo from the platform team."),
            ("Dmitri", "Nice to meet you both."),
            ("Paolo", "Tell us about a system you scaled."),
            ("Dmitri", "At my last company I scaled the payments API from two hundred to about five thousand "
                      "requests a second."),
            ("Farah", "How long did that take?"),
            ("Dmitri", "About eight months, with a team of four."),
            ("Paolo", "Would you be open to being on call one week in six?"),
            ("Dmitri", "Yes, that's fine. When would you want me to start?"),
            ("Farah", "Usually within six weeks. Paolo, please send Dmitri the take-home exercise today."),
            ("Paolo", "Sure, it goes out this afternoon. Dmitri, you'll have five days to send it back."),
            ("Farah", "And our recruiter, Beth, will call you on Friday about the salary."),
            ("Farah", "Assistant, how many requests a second did Dmitri's API handle?"),
            ("Dmitri", "Assistant, who is sending me the exercise?"),
        ],
        "people": ["Farah", "Dmitri", "Paolo", "Beth"],
        "action_items": [
            ("Paolo", "send take-home exercise", "today", "imperative", "address"),
            ("Dmitri", "send back exercise", "five days", "indirect", "address"),
            ("Beth", "call salary", "Friday", "x_will", "name"),
        ],
        "decisions": [],
        "open_questions": [],
        "questions": [(11, "five thousand|5,000|5000"), (12, "paolo")],
        "non_items": [(6, "action_item", "question", "call one week six")],
    },
    "tides_lecture": {
        "kind": "lecture",
        "speakers": {"Doctor Mensah": V_M7, "Leilani": V_F4, "Yusuf": V_M2},
        "turns": [
            ("Doctor Mensah", "Today we look at tides. The moon's gravity pulls the ocean toward it, and that makes "
                             "a bulge on the near side of the Earth."),
            ("Doctor Mensah", "There is a second bulge on the far side, so most coasts get two high tides a day, "
                             "about twelve hours and twenty-five minutes apart."),
            ("Doctor Mensah", "When the sun and the moon line up, we get spring tides, the largest ones. "
                             "They have nothing to do with the season."),
            ("Leilani", "Doctor Mensah, will this be in the midterm?"),
            ("Doctor Mensah", "Yes. The midterm is on October the twelfth, and it covers chapters three to six."),
            ("Yusuf", "Could you put today's slides online?"),
            ("Doctor Mensah", "I'll post them tonight. "
                             "And Yusuf, since you asked, please bring the tide tables for Saturday's field trip."),
            ("Leilani", "If the bus were bigger, we could take the whole second-year class, couldn't we?"),
            ("Doctor Mensah", "We could, but it isn't, so the field trip is first-years only."),
            ("Leilani", "Assistant, how far apart are the two high tides?"),
            ("Yusuf", "Assistant, when is the midterm?"),
        ],
        "people": ["Doctor Mensah", "Leilani", "Yusuf"],
        "action_items": [
            ("Doctor Mensah", "post slides", "tonight", "i_will", "voice"),
            ("Yusuf", "bring tide tables", "Saturday", "imperative", "address"),
        ],
        "decisions": [("the field trip is for first-years only", "field trip first years")],
        "open_questions": [],
        "questions": [(9, "twelve|12", "twenty-five|25"), (10, "october", "twelfth|12")],
        "non_items": [(7, "action_item", "hypothetical", "take second-year class")],
    },
    "garden_ideas": {
        "kind": "brainstorm",
        "speakers": {"Niamh": V_F3, "Kwame": V_M3, "Ingrid": V_F2, "Sunil": V_M2, "Bea": V_F4},
        "turns": [
            ("Niamh", "Okay, ideas for getting more people to the community garden this summer. Anything goes."),
            ("Kwame", "A seed swap on a Saturday morning. People bring seeds and take seeds."),
            ("Ingrid", "What if we had a kids' corner with small raised beds?"),
            ("Sunil", "We could do a cooking night with whatever we harvest."),
            ("Bea", "I can ask the bakery on Mill Street to donate bread for the cooking night."),
            ("Niamh", "Love these. The seed swap needs a poster. Let's have Ingrid design it, she did last year's."),
            ("Ingrid", "Sure, I'll have a draft by the weekend."),
            ("Kwame", "Who is going to ask the council about the water tap?"),
            ("Sunil", "I'll do it, I know someone there."),
            ("Niamh", "How much would the raised beds cost?"),
            ("Kwame", "Roughly sixty pounds each, so three beds would be about one hundred and eighty."),
            ("Niamh", "So it's still an open question whether the budget covers the kids' corner."),
            ("Ingrid", "We decided on the seed swap for the first Saturday in June, though."),
            ("Sunil", "Assistant, who is talking to the council?"),
            ("Kwame", "Assistant, what ideas did we have?"),
        ],
        "people": ["Niamh", "Kwame", "Ingrid", "Sunil", "Bea"],
        "action_items": [
            ("Bea", "ask bakery donate bread", "", "i_will", "voice"),
            ("Ingrid", "design seed swap poster", "the weekend", "lets_have", "name"),
            ("Sunil", "ask council water tap", "", "volunteer", "voice"),
        ],
        "decisions": [("seed swap on the first Saturday in June", "seed swap saturday june")],
        "open_questions": [("whether the budget covers the kids' corner", "budget kids corner")],
        "questions": [(13, "sunil"), (14, "seed", "kids|raised", "cooking")],
        "non_items": [],
    },
    "bike_workshop": {
        "kind": "workshop",
        "speakers": {"Mateus": V_M7, "Rosa": V_F4, "Chidi": V_M2},
        "turns": [
            ("Mateus", "Right, the shop is busy this week. We've got fourteen bikes waiting."),
            ("Rosa", "The blue cargo bike needs a new chain, and the brakes need bleeding."),
            ("Mateus", "Chidi, could you have a look at the cargo bike before the owner comes back at four?"),
            ("Chidi", "Yep, I'm on it."),
            ("Rosa", "We're also out of inner tubes, the twenty-six inch ones."),
            ("Mateus", "Rosa to order fifty inner tubes by tomorrow."),
            ("Chidi", "And I'm still supposed to buy a new truing stand, right?"),
            ("Mateus", "No, cancel that, I found the old one in the basement."),
            ("Rosa", "Chidi, can you hear the clicking on this wheel?"),
            ("Chidi", "Yes, that's the bearing."),
            ("Mateus", "Assistant, how many bikes are waiting?"),
            ("Rosa", "Assistant, what do I have to order?"),
        ],
        "people": ["Mateus", "Rosa", "Chidi"],
        "action_items": [
            ("Chidi", "look cargo bike", "before four", "could_you", "address"),
            ("Rosa", "order fifty inner tubes", "tomorrow", "x_to", "name"),
        ],
        "decisions": [],
        "open_questions": [],
        "questions": [(10, "fourteen|14"), (11, "tube|tubes", "fifty|50")],
        "non_items": [
            (6, "action_item", "cancelled", "buy truing stand"),
            (8, "action_item", "question", "hear clicking wheel"),
        ],
    },
    "ward_handover": {
        "kind": "ward",
        "speakers": {"Precious": V_F3, "Kofi": V_M3, "Megan": V_F4},
        "turns": [
            ("Precious", "Handover for bay two. "
                        "Mr Patel in bed four had a good night, pain score down to three out of ten."),
            ("Kofi", "Is he still nil by mouth?"),
            ("Precious", "No, he can eat from today. Bed six, Mrs Lewis: "
                        "her blood pressure was high at six this morning, a hundred and sixty over ninety-five."),
            ("Megan", "I'd like you to recheck her pressure every two hours, Kofi."),
            ("Kofi", "Okay, every two hours."),
            ("Precious", "Can someone call pharmacy about the missing antibiotics for bed eight?"),
            ("Megan", "I'll do it."),
            ("Precious", "Physio wanted to see Mr Patel at eleven, but they cancelled, so there's no need to get him "
                        "ready."),
            ("Kofi", "Precious, did the family of bed eight phone back?"),
            ("Precious", "Not yet."),
            ("Megan", "Assistant, what was Mrs Lewis's blood pressure?"),
            ("Kofi", "Assistant, who is calling pharmacy?"),
        ],
        "people": ["Precious", "Kofi", "Megan", "Mr Patel", "Mrs Lewis"],
        "action_items": [
            ("Kofi", "recheck pressure", "every two hours", "id_like_you_to", "address"),
            ("Megan", "call pharmacy antibiotics", "", "volunteer", "voice"),
        ],
        "decisions": [],
        "open_questions": [],
        "questions": [(10, "160|hundred and sixty|one sixty", "95|ninety-five|ninety five"), (11, "megan")],
        "non_items": [
            (7, "action_item", "cancelled", "physio ready"),
            (8, "action_item", "question", "family phone back"),
        ],
    },
    "toolbox_talk": {
        "kind": "building site",
        "speakers": {"Declan": V_M7, "Tanya": V_F2, "Hiroshi": V_M2},
        "turns": [
            ("Declan", "Morning. Toolbox talk before we start. The crane inspection is due on the fifteenth."),
            ("Tanya", "Declan, the scaffold on the east side still has a loose board on level three."),
            ("Declan", "Hiroshi, fix that board this morning, before anyone goes up."),
            ("Hiroshi", "No problem."),
            ("Tanya", "The concrete is booked for Thursday at seven. That's twelve cubic metres."),
            ("Declan", "Action item for Tanya: confirm the pump truck for Thursday by noon tomorrow."),
            ("Tanya", "Got it."),
            ("Hiroshi", "Do we need the road closed for the delivery?"),
            ("Declan", "No, we don't need a road closure. The lorry fits in the yard."),
            ("Tanya", "I'll update the site diary tonight."),
            ("Hiroshi", "Assistant, how much concrete is coming on Thursday?"),
            ("Declan", "Assistant, what are the action items?"),
        ],
        "people": ["Declan", "Tanya", "Hiroshi"],
        "action_items": [
            ("Hiroshi", "fix loose scaffold board", "this morning", "imperative", "address"),
            ("Tanya", "confirm pump truck", "noon tomorrow", "action_item_for", "name"),
            ("Tanya", "update site diary", "tonight", "i_will", "voice"),
        ],
        "decisions": [],
        "open_questions": [],
        "questions": [(10, "twelve|12", "cubic|metres|meters"), (11, "board", "pump", "diary")],
        "non_items": [(8, "action_item", "negation", "road closure")],
    },
    "school_trip": {
        "kind": "school",
        "speakers": {"Catriona": V_F3, "Raj": V_M3, "Yvonne": V_F4, "Arjun": V_M2},
        "turns": [
            ("Catriona", "Okay, staff meeting. "
                        "First item, the year five trip to the science museum on the 3rd of May."),
            ("Raj", "We have sixty-two pupils signed up, and we need one adult for every eight children."),
            ("Yvonne", "So that's eight adults. We have five teachers, so three parent volunteers."),
            ("Catriona", "Could someone email the parents asking for volunteers?"),
            ("Arjun", "I'll take that."),
            ("Catriona", "Thank you, Arjun. Raj, the coach company needs the final numbers by Friday. "
                        "Can you send them?"),
            ("Raj", "Yes, I'll send them Thursday to be safe."),
            ("Yvonne", "Didn't we decide to skip the gift shop this year?"),
            ("Catriona", "We talked about it, but nothing's decided yet."),
            ("Raj", "Yvonne, is your classroom free at lunch tomorrow?"),
            ("Yvonne", "Yes, after half twelve."),
            ("Catriona", "Assistant, how many parent volunteers do we need?"),
            ("Raj", "Assistant, when is the trip?"),
        ],
        "people": ["Catriona", "Raj", "Yvonne", "Arjun"],
        "action_items": [
            ("Arjun", "email parents volunteers", "", "volunteer", "voice"),
            ("Raj", "send final numbers coach company", "Thursday", "could_you", "address"),
        ],
        "decisions": [],
        "open_questions": [("whether to skip the gift shop", "gift shop")],
        "questions": [(11, "three|3"), (12, "3rd|third|3", "may")],
        "non_items": [
            (7, "decision", "not_decided", "skip gift shop"),
            (9, "action_item", "question", "classroom free lunch"),
        ],
    },
    "app_launch": {
        "kind": "planning",
        "speakers": {"Nadia": V_F3, "Oskar": V_M7, "Pedro": V_M3, "Aiko": V_F4},
        "turns": [
            ("Nadia", "Let's plan the app launch. The target date is June the second."),
            ("Oskar", "Marketing needs the screenshots two weeks before, so by May nineteenth."),
            ("Nadia", "Pedro will make the screenshots."),
            ("Pedro", "I'm at the conference that week. Can Aiko do them?"),
            ("Nadia", "Actually, yes, let Aiko take the screenshots instead."),
            ("Aiko", "Sure, I'll get them done by the nineteenth."),
            ("Oskar", "We'll send the press release to our twenty partner blogs on launch day."),
            ("Nadia", "And the launch party? I had pencilled in the rooftop bar."),
            ("Oskar", "We said we'd skip the party this time, so no booking needed."),
            ("Pedro", "Oskar, did you get my email about the app store fees?"),
            ("Oskar", "I did, thanks."),
            ("Nadia", "So we decided: the launch is on June second, no later."),
            ("Pedro", "Assistant, who is doing the screenshots?"),
            ("Oskar", "Assistant, what did we decide about the launch date?"),
        ],
        "people": ["Nadia", "Oskar", "Pedro", "Aiko"],
        "action_items": [
            ("Aiko", "screenshots", "May nineteenth", "reassigned", "name"),
            (None, "send press release partner blogs", "launch day", "we_will", None),
        ],
        "decisions": [("the launch is on June second", "launch june second")],
        "open_questions": [],
        "questions": [(12, "aiko"), (13, "june", "second|2nd|2")],
        "non_items": [
            (8, "action_item", "cancelled", "party rooftop bar"),
            (9, "action_item", "question", "email app store fees"),
        ],
    },
    # Twelve more, written fresh (by a helper that read neither the rules nor the test/holdout splits),
    # so that dev again holds speech nobody has tuned on yet.
    "sprint_standup": {
        "kind": "stand-up",
        "speakers": {"Ifeoma": V_F3, "Lukas": V_M7, "Sanjana": V_F2, "Wei": V_M3},
        "turns": [
            ("Ifeoma", "Morning, everyone. Let's keep it short, I've got the roadmap review at ten. Lukas, off you go."),
            ("Lukas", "So the spreadsheet export is basically done, I'm just chasing one flaky test. "
                      "I'll have the pull request up before lunch."),
            ("Sanjana", "Is that the same flaky test that broke the nightly build on Monday?"),
            ("Lukas", "No, that one was the date picker. Oh, and make that end of day for the pull request, "
                      "I've got the dentist at twelve."),
            ("Ifeoma", "No problem. Sanjana?"),
            ("Sanjana", "Still on the onboarding checklist. I'm waiting for the copy from the content team, so I'm a bit "
                        "stuck. If nothing arrives by Thursday, I suppose I could write placeholder text myself."),
            ("Ifeoma", "Please don't, placeholder text has a way of shipping. Wei, could you nudge the content team "
                       "today? You sit right next to them."),
            ("Wei", "Sure, I'll wander over after this. On my side, the new search ranking is live behind a flag for "
                    "five percent of users. Numbers look flat so far."),
            ("Ifeoma", "Flat is fine for now. It stays at five percent through the weekend, and we look at it again "
                       "on Monday."),
            ("Lukas", "Should it go in the release notes, or is that too early?"),
            ("Ifeoma", "Too early. Keep it out of the notes until we've seen a full week of data."),
            ("Sanjana", "One thing nobody has answered is who owns the accessibility audit now that Dolores has left."),
            ("Ifeoma", "Good point, and honestly I don't know. Let's park it until Friday's planning. "
                       "Assistant, what is Sanjana waiting on?"),
            ("Wei", "Assistant, how many users can see the new search ranking?"),
        ],
        "people": ["Ifeoma", "Lukas", "Sanjana", "Wei", "Dolores"],
        "action_items": [
            ("Lukas", "pull request spreadsheet export", "end of day", "i_will", "voice"),
            ("Wei", "nudge content team copy", "today", "could_you", "address"),
        ],
        "decisions": [
            ("the new search ranking stays at five percent through the weekend, looked at again on Monday",
             "search ranking five percent weekend"),
            ("the search ranking stays out of the release notes until there is a full week of data",
             "search ranking release notes"),
        ],
        "open_questions": [("who owns the accessibility audit now that Dolores has left", "owns accessibility audit")],
        "questions": [(12, "content", "copy|text"), (13, "five|5", "percent|%")],
        "non_items": [
            (2, "action_item", "question", "flaky test nightly build"),
            (5, "action_item", "hypothetical", "write placeholder text"),
            (9, "action_item", "question", "release notes early"),
            (12, "decision", "not_decided", "accessibility audit owner"),
        ],
    },
    "winter_menu": {
        "kind": "planning",
        "speakers": {"Valentina": V_F4, "Kieran": V_M3, "Amani": V_F3},
        "turns": [
            ("Valentina", "Right, the winter menu goes live on the fourth of November, so we've got just under five "
                          "weeks. I'd like us to walk out of here with an actual campaign plan."),
            ("Kieran", "Can I say something first? The posters last year did almost nothing. Nearly all the sign-ups "
                       "came through the app and the email list."),
            ("Amani", "Then let's not print posters at all this time. I'd rather put that money into paid social and "
                      "the app banner."),
            ("Valentina", "Works for me. No posters, and the poster budget goes to social and the app."),
            ("Kieran", "Good, I never liked those posters anyway."),
            ("Valentina", "Amani, I'd like you to put the social plan together, with a rough spend per week, "
                          "by next Wednesday."),
            ("Amani", "Next Wednesday is tight, I've got the photo shoot on Tuesday. Could I have until Friday?"),
            ("Valentina", "Friday's fine, as long as I can read it before the board call on Monday."),
            ("Kieran", "What about influencers? We could send samples to a few of the local food bloggers."),
            ("Valentina", "Maybe. But then someone has to handle the disclosure rules, and I'm not sure we have the "
                          "time. Let's not commit to it today."),
            ("Kieran", "Fair. Action item for me, then: I'll dig out last year's email numbers so we know what open "
                       "rates to expect. By the end of this week."),
            ("Amani", "And the launch email, is it one big send or a series?"),
            ("Valentina", "A series. Three emails, a week apart, starting on launch day."),
            ("Kieran", "Who's writing them, though? Ruth did them last year, but she's on leave until December."),
            ("Valentina", "Then we'll brief the agency to write them. Assistant, when does the winter menu go live?"),
            ("Amani", "Assistant, where is the poster money going instead?"),
        ],
        "people": ["Valentina", "Kieran", "Amani", "Ruth"],
        "action_items": [
            ("Amani", "social plan spend per week", "Friday", "id_like_you_to", "address"),
            ("Kieran", "last year email numbers open rates", "the end of this week", "action_item_for", "voice"),
            (None, "brief agency write emails", "", "we_will", None),
        ],
        "decisions": [
            ("no posters: the poster budget goes to paid social and the app banner", "posters budget social app"),
            ("the launch emails are a series of three, a week apart, from launch day", "series three emails week"),
        ],
        "open_questions": [("whether to work with influencers, the local food bloggers", "influencers food bloggers")],
        "questions": [(14, "fourth|4th|4", "november"), (15, "social", "app")],
        "non_items": [
            (2, "action_item", "negation", "print posters"),
            (8, "action_item", "hypothetical", "send samples food bloggers"),
            (9, "decision", "not_decided", "influencers disclosure rules"),
            (13, "action_item", "question", "Ruth"),
        ],
    },
    "checkout_outage": {
        "kind": "review",
        "speakers": {"Tobias": V_M7, "Ayesha": V_F2, "Bongani": V_M2, "Freya": V_F3},
        "turns": [
            ("Tobias", "Okay, this is the review of Saturday's checkout outage. Usual rules, no blame, we're here to "
                       "fix the system. Ayesha, you were on call, so over to you."),
            ("Ayesha", "At two fourteen the primary database ran out of disk, because the audit logs hadn't rotated "
                       "for three weeks. Checkout failed straight away, and we were down for forty seven minutes."),
            ("Bongani", "Why didn't the disk alert fire? We set one up in the spring."),
            ("Ayesha", "It did fire. It went to the old pager rota, which still had Marco on it, and Marco left "
                       "in June."),
            ("Freya", "Ouch. So at least two fixes, log rotation and alert routing."),
            ("Tobias", "Right. Bongani, please get log rotation in place on all the database hosts by Wednesday."),
            ("Bongani", "Hmm, I'm at the conference Wednesday and Thursday, so that's going to be hard."),
            ("Freya", "I'll take the rotation, I built those hosts. Wednesday still works for me."),
            ("Tobias", "Thanks, Freya. Ayesha, you'll want the pager rota cleaned up before your next on-call week "
                       "starts on the twentieth."),
            ("Ayesha", "Yes, fair. Should we move the audit logs off the database box altogether?"),
            ("Tobias", "Probably, but I don't want to commit to that today, it needs a proper design first."),
            ("Freya", "In the meantime, can we at least say that alerts go to the rota tool and never to a named "
                      "person?"),
            ("Tobias", "Yes, from today every alert routes through the rota tool, never to an individual. "
                       "And we'll get the write-up to the support team by Friday."),
            ("Bongani", "Assistant, how long was checkout down on Saturday?"),
            ("Freya", "Assistant, who is doing the log rotation now?"),
        ],
        "people": ["Tobias", "Ayesha", "Bongani", "Freya", "Marco"],
        "action_items": [
            ("Freya", "log rotation database hosts", "Wednesday", "reassigned", "voice"),
            ("Ayesha", "clean up pager rota", "the twentieth", "indirect", "address"),
            (None, "write-up support team", "Friday", "we_will", None),
        ],
        "decisions": [("every alert routes through the rota tool, never to a named person", "alerts rota tool person")],
        "open_questions": [("whether to move the audit logs off the database host", "move audit logs database")],
        "questions": [(13, "forty seven|forty-seven|47"), (14, "freya")],
        "non_items": [
            (2, "action_item", "question", "disk alert fire spring"),
            (9, "action_item", "question", "move audit logs box"),
            (10, "decision", "not_decided", "audit logs proper design"),
        ],
    },
    "manager_checkin": {
        "kind": "one-on-one",
        "speakers": {"Giulia": V_F4, "Noor": V_F3},
        "turns": [
            ("Giulia", "Hi Noor, come in, grab a seat. How's the week been? You sounded pretty swamped on Tuesday."),
            ("Noor", "It's been a lot, honestly. The hospital group renewal took most of it, but they signed this "
                     "morning. Three more years."),
            ("Giulia", "Oh, that's great news. I'll make sure it goes in the leadership update on Friday, people "
                       "should hear about that."),
            ("Noor", "Thank you. Can I ask, is the team lead job still open?"),
            ("Giulia", "It is, applications close at the end of the month, and I think you'd be a strong candidate. "
                       "Could you write me one page on what you'd change in the team? The twenty second, ideally, "
                       "so I can give you feedback first."),
            ("Noor", "I'm at the customer summit most of that week. Would Monday the twenty fifth be okay?"),
            ("Giulia", "Monday the twenty fifth is fine, that still leaves time before the deadline."),
            ("Noor", "Do you know if the role comes with a new salary band?"),
            ("Giulia", "Good question, and I really don't know, HR haven't published it. Oh, and that training plan "
                       "I asked you for last time, forget it. HR are rolling out their own framework."),
            ("Noor", "Happy to drop it. One more thing. I'm still covering the support queue every Friday afternoon, "
                     "and it's eating into my accounts."),
            ("Giulia", "That was only ever meant to be temporary. From next week you're off the Friday queue, and "
                       "Lena's team will pick it up."),
            ("Noor", "That would make a huge difference. And if I got the role, would I keep any of my own accounts?"),
            ("Giulia", "Some of them, probably, but we'd work that out together. Let's not get ahead of ourselves."),
            ("Noor", "Fair enough. Assistant, what do I owe Giulia, and by when?"),
            ("Giulia", "Assistant, when do team lead applications close?"),
        ],
        "people": ["Giulia", "Noor", "Lena"],
        "action_items": [
            ("Giulia", "renewal leadership update", "Friday", "i_will", "voice"),
            ("Noor", "write one page team changes", "Monday the twenty fifth", "could_you", "address"),
        ],
        "decisions": [("Noor comes off the Friday support queue from next week and Lena's team picks it up",
                       "Friday support queue")],
        "open_questions": [("whether the team lead role comes with a new salary band", "team lead salary band")],
        "questions": [(13, "page", "twenty fifth|twenty-fifth|25"), (14, "end", "month")],
        "non_items": [
            (3, "action_item", "question", "team lead job open"),
            (8, "action_item", "cancelled", "training plan"),
            (11, "action_item", "hypothetical", "keep own accounts"),
        ],
    },
    "willow_court_offer": {
        "kind": "sales call",
        "speakers": {"Callum": V_M3, "Rashid": V_M2},
        "turns": [
            ("Callum", "Hi Rashid, it's Callum from Brookfield Homes. Thanks for picking up. I wanted to follow up on "
                       "Saturday's viewing at Willow Court."),
            ("Rashid", "Hi Callum. Yes, we liked it a lot, my wife especially. The second bedroom is smaller than it "
                       "looks in the photos, though."),
            ("Callum", "That's fair, the photos are wide angle. So are you two thinking about an offer?"),
            ("Rashid", "We are. They're asking four hundred and twenty thousand. We were thinking three hundred and "
                       "ninety five."),
            ("Callum", "I'll be straight with you, the seller turned down four hundred last week. If you came in at "
                       "four ten, I think they'd take it seriously."),
            ("Rashid", "Let me talk it over with Leila tonight. I'll ring you back tomorrow morning with a number."),
            ("Callum", "Perfect. In the meantime, could you send me your mortgage agreement in principle? The seller's "
                       "agent will want to see it before they look at any offer."),
            ("Rashid", "Sure, I'll send it over with the offer tomorrow. Is the service charge still eighteen hundred "
                       "a year?"),
            ("Callum", "It went up to nineteen fifty in April. I'll email you the latest statement from the management "
                       "company this afternoon."),
            ("Rashid", "Thanks. And the survey, should we book our own, or is there one from the seller?"),
            ("Callum", "There is one, but it's two years old, I wouldn't rely on it. Book your own as soon as the "
                       "offer's accepted."),
            ("Rashid", "Okay. The thing we still haven't figured out is whether we could complete before the school "
                       "term starts in September."),
            ("Callum", "That depends on the seller's onward purchase, and I honestly don't know yet. "
                       "Assistant, what price did the seller turn down last week?"),
            ("Rashid", "Assistant, what's the service charge now?"),
        ],
        "people": ["Callum", "Rashid", "Leila"],
        "action_items": [
            ("Rashid", "ring back offer number", "tomorrow morning", "i_will", "voice"),
            ("Rashid", "send mortgage agreement in principle", "tomorrow", "could_you", "address"),
            ("Callum", "email service charge statement", "this afternoon", "i_will", "voice"),
            ("Rashid", "book own survey", "as soon as the offer's accepted", "imperative", "address"),
        ],
        "decisions": [],
        "open_questions": [("whether they could complete before the school term starts in September",
                            "complete school term September")],
        "questions": [(12, "four hundred|400"), (13, "nineteen fifty|1950|1,950|nineteen hundred and fifty")],
        "non_items": [(4, "action_item", "hypothetical", "come in four ten")],
    },
    "vpn_lockout": {
        "kind": "support call",
        "speakers": {"Sione": V_US, "Magdalena": V_F2},
        "turns": [
            ("Sione", "IT service desk, Sione speaking. What can I do for you?"),
            ("Magdalena", "Hi, it's Magdalena in finance. I haven't been able to get onto the VPN from home since this "
                          "morning. It just keeps saying authentication failed."),
            ("Sione", "Okay, let's take a look. Have you changed your password recently?"),
            ("Magdalena", "On Monday, yes. It forced me to."),
            ("Sione", "That'll be part of it, the client sometimes hangs on to the old one. Open the VPN client, go to "
                      "settings, and clear the saved credentials for me."),
            ("Magdalena", "Done. Now it wants a code from the authenticator app, but I got a new phone last week and "
                          "the app isn't on it."),
            ("Sione", "Ah, that's the real problem. I can't reset the authenticator over the phone, so you'd need to "
                      "bring the new phone down to the desk on the third floor."),
            ("Magdalena", "I'm working from home until Thursday. Is there really no other way?"),
            ("Sione", "Let me check. Yes, your line manager can vouch for you on a video call instead. "
                      "Who's your manager?"),
            ("Magdalena", "Abdullah Karimi."),
            ("Sione", "Okay, so forget coming in, we'll do the reset over video. I'll raise a ticket now and send you "
                      "and Abdullah an invite for two o'clock today."),
            ("Magdalena", "Great. Should I warn him, or will the invite be enough?"),
            ("Sione", "I need you to give him a heads up yourself, our invites tend to land in spam."),
            ("Magdalena", "Will do. Assistant, what time is the call with Abdullah?"),
            ("Sione", "Assistant, why can't Magdalena get onto the VPN?"),
        ],
        "people": ["Sione", "Magdalena", "Abdullah Karimi"],
        "action_items": [
            ("Sione", "raise ticket send invite", "today", "i_will", "voice"),
            ("Magdalena", "heads up Abdullah", "", "id_like_you_to", "address"),
        ],
        "decisions": [("the authenticator reset is done over a video call with Abdullah instead of at the desk",
                       "reset video call")],
        "open_questions": [],
        "questions": [(13, "two|2"), (14, "authenticator|phone|code")],
        "non_items": [
            (2, "action_item", "question", "changed password recently"),
            (6, "action_item", "cancelled", "bring new phone desk third floor"),
        ],
    },
    "soil_lab_meeting": {
        "kind": "school",
        "speakers": {"Esther": V_F4, "Thiago": V_M7, "Yuki": V_F3, "Emeka": V_M3},
        "turns": [
            ("Esther", "Okay, let's start. Three things today: the sequencing results, the conference abstract, and "
                       "the freezer."),
            ("Yuki", "The sequencing came back on Tuesday. About a third of the river site samples failed quality "
                     "control, mostly low read depth."),
            ("Thiago", "A third? Was that the batch that sat in the courier van over the bank holiday?"),
            ("Yuki", "Same batch. The extractions looked fine, so I think the delay did the damage."),
            ("Esther", "Then we resequence them. I'd rather pay for it now than argue with a reviewer later. "
                       "Emeka to get a quote from the sequencing core by Friday."),
            ("Emeka", "Sure. Does that come out of the grant or the department pot?"),
            ("Esther", "No idea, to be honest, nobody has told me. Let's leave that one open for now."),
            ("Thiago", "On the abstract, the deadline's the fifteenth."),
            ("Esther", "Thiago will pull the first draft together, then, he wrote last year's."),
            ("Thiago", "Happy to. Yuki, I'll need your figures by the tenth, though."),
            ("Yuki", "The tenth is hard, I'm running the undergraduate practicals that week. Could it be the twelfth?"),
            ("Thiago", "The twelfth is okay, but not a day later."),
            ("Esther", "Good. Last thing, the minus eighty freezer is full again. Can someone go through it and throw "
                       "out anything unlabelled?"),
            ("Emeka", "I'll do it, I have to defrost my shelf anyway. Next Wednesday?"),
            ("Esther", "Next Wednesday's fine. And before anyone asks, we are not buying a second freezer this year, "
                       "there's no money for it."),
            ("Yuki", "Assistant, how many of the river samples failed quality control?"),
        ],
        "people": ["Esther", "Thiago", "Yuki", "Emeka"],
        "action_items": [
            ("Emeka", "quote sequencing core", "Friday", "x_to", "name"),
            ("Thiago", "first draft abstract", "", "x_will", "name"),
            ("Yuki", "figures abstract", "the twelfth", "indirect", "address"),
            ("Emeka", "throw out unlabelled freezer", "next Wednesday", "volunteer", "voice"),
        ],
        "decisions": [
            ("the failed river site samples are resequenced", "resequence river samples"),
            ("no second freezer this year", "second freezer"),
        ],
        "open_questions": [("whether the resequencing is paid from the grant or the department pot",
                            "grant department pot")],
        "questions": [(15, "third|1/3|one in three")],
        "non_items": [
            (2, "action_item", "question", "courier van bank holiday"),
            (5, "action_item", "question", "grant department pot"),
            (6, "decision", "not_decided", "grant department pot"),
            (14, "action_item", "negation", "buy second freezer"),
        ],
    },
    "vet_morning_huddle": {
        "kind": "ward",
        "speakers": {"Marisol": V_F3, "Colm": V_M7, "Ananya": V_F4, "Jakub": V_M2},
        "turns": [
            ("Marisol", "Morning, all. Full list today, so let's be quick. Colm, what's in the kennels?"),
            ("Colm", "Three inpatients. The spaniel with pancreatitis is eating again, so she can probably go home "
                     "this afternoon. The old tabby in kennel four still isn't drinking. I want bloods repeated at "
                     "eleven, can someone do that?"),
            ("Ananya", "I'll take it. Full kidney panel, or just the basics?"),
            ("Colm", "Full panel, please. And forget the x-ray I'd pencilled in for the spaniel, she won't need "
                     "it now."),
            ("Marisol", "What about the Labrador from yesterday's leg surgery?"),
            ("Colm", "Comfortable, but his dressing needs changing before lunch."),
            ("Ananya", "That can't be me, I'm in theatre from half nine."),
            ("Jakub", "Kasia's in at ten, could she do it?"),
            ("Marisol", "Yes, let's have Kasia change the dressing when she gets in."),
            ("Jakub", "Front desk: two emergencies already booked into the morning, and Mrs Delgado has rung again "
                      "about her bill."),
            ("Marisol", "Tell her I'll call her at lunchtime. Actually, no, I'm consulting straight through. Colm, can "
                        "you call her instead?"),
            ("Colm", "Fine, I'll ring her after my twelve o'clock."),
            ("Marisol", "Thanks. One more thing, the new dental prices are on hold until next month, so please don't "
                        "quote them to anyone yet."),
            ("Ananya", "Do we know when the ultrasound will be fixed? We sent two referrals out last week because "
                       "of it."),
            ("Marisol", "I haven't heard a thing from the engineer. Jakub to chase them this morning. "
                        "Assistant, which patient needs repeat bloods?"),
            ("Jakub", "Assistant, who's calling Mrs Delgado back?"),
        ],
        "people": ["Marisol", "Colm", "Ananya", "Jakub", "Kasia", "Mrs Delgado"],
        "action_items": [
            ("Ananya", "repeat bloods tabby", "eleven", "volunteer", "voice"),
            ("Kasia", "change Labrador dressing", "before lunch", "lets_have", "name"),
            ("Colm", "call Mrs Delgado bill", "after twelve", "reassigned", "address"),
            ("Jakub", "chase engineer ultrasound", "this morning", "x_to", "name"),
        ],
        "decisions": [("the new dental prices are on hold until next month", "dental prices hold next month")],
        "open_questions": [("when the ultrasound will be fixed", "ultrasound fixed")],
        "questions": [(14, "tabby|cat"), (15, "colm")],
        "non_items": [
            (3, "action_item", "cancelled", "x-ray spaniel"),
            (12, "action_item", "negation", "quote dental prices"),
        ],
    },
    "tech_week_meeting": {
        "kind": "planning",
        "speakers": {"Dominika": V_F2, "Rhys": V_M3, "Ottilie": V_F4, "Babajide": V_M7},
        "turns": [
            ("Dominika", "Right, production meeting. We open a week on Friday and the tech is this Sunday, so let's "
                         "go department by department. Lighting?"),
            ("Babajide", "Mostly there. The storm in act two still looks wrong, far too blue. I'll re-plot it on "
                         "Saturday morning while the stage is empty."),
            ("Rhys", "And lose the strobe while you're at it. It makes the storm look cheap, and we'd need a warning "
                     "sign in the foyer anyway."),
            ("Babajide", "Fine by me, the strobe's gone."),
            ("Ottilie", "Costumes. The ball gowns are finished, but I still haven't fitted the two understudies. "
                        "They keep cancelling on me."),
            ("Rhys", "Dominika will get them in, she has everyone's schedules."),
            ("Dominika", "Yes, leave it with me. Thursday at six, both of them."),
            ("Rhys", "Now the big one. The revolve jammed twice yesterday. If it jams during a show, we'd have to "
                     "stop and bring the house lights up."),
            ("Babajide", "The supplier says they'll send an engineer, but nobody has given us a date. "
                         "Do we have a plan B?"),
            ("Dominika", "Not yet. We'll work out manual scene changes on Sunday morning before the tech, "
                         "just in case."),
            ("Ottilie", "One more from me. Rhys, the red coat for the finale isn't going to happen. The fabric's on "
                        "back order until after we open."),
            ("Rhys", "Then she wears the grey one from act one. It's darker anyway, I think I prefer it."),
            ("Ottilie", "Good. I was going to dye the chorus shirts as well, but I won't now, they look fine under "
                        "Babajide's lights."),
            ("Rhys", "Assistant, when is the tech rehearsal?"),
            ("Babajide", "Assistant, what's the plan for the understudies?"),
        ],
        "people": ["Dominika", "Rhys", "Ottilie", "Babajide"],
        "action_items": [
            ("Babajide", "re-plot storm", "Saturday morning", "i_will", "voice"),
            ("Dominika", "understudies fitting", "Thursday at six", "x_will", "name"),
            (None, "work out manual scene changes", "Sunday morning", "we_will", None),
        ],
        "decisions": [
            ("the strobe is dropped from the act two storm", "strobe storm"),
            ("the finale uses the grey coat from act one instead of the red one", "grey coat finale"),
        ],
        "open_questions": [("when the supplier's engineer will come to fix the revolve", "engineer revolve date")],
        "questions": [(13, "sunday"), (14, "fitting|fitted", "thursday", "six|6")],
        "non_items": [
            (7, "decision", "hypothetical", "stop show house lights"),
            (12, "action_item", "cancelled", "dye chorus shirts"),
        ],
    },
    "orchard_coop": {
        "kind": "committee",
        "speakers": {"Ewan": V_M7, "Parveen": V_F3, "Gustavo": V_M2, "Hine": V_F4},
        "turns": [
            ("Ewan", "Thanks for coming out in this rain. Main business tonight is the harvest rota and the press."),
            ("Parveen", "The early apples are running about ten days ahead of last year. We'll want the press from "
                        "the twelfth, not the twentieth."),
            ("Gustavo", "Then it needs a new belt before anyone touches it. Last year it slipped every ten minutes."),
            ("Ewan", "Gustavo, you know that machine best. Would you order a belt and get it fitted before the "
                     "twelfth?"),
            ("Gustavo", "I can order it today. Fitting it is the problem, I'm at my sister's wedding from the eighth."),
            ("Ewan", "Hine, you've done one of these on your own press, haven't you? Let's hand the fitting to Hine."),
            ("Hine", "Yes, happy to. It'll be done by the twelfth."),
            ("Parveen", "On the rota, last year we had people picking on their own, which wasn't safe. I'd like pairs "
                        "only this year."),
            ("Ewan", "Any objections to pairs only? No? Then pairs it is."),
            ("Hine", "What about the farmers' market stall? Are we doing it again this year?"),
            ("Gustavo", "It barely covered the pitch fee last time. I'd rather we sold through the farm shop in town."),
            ("Ewan", "We're not going to settle that tonight, not without the figures."),
            ("Parveen", "I've got last year's takings at home somewhere."),
            ("Ewan", "Great. Action item for Parveen, then: bring last year's stall takings to the next meeting, on "
                     "the third of October."),
            ("Gustavo", "Assistant, from what date do we need the press?"),
            ("Hine", "Assistant, who's fitting the new belt?"),
        ],
        "people": ["Ewan", "Parveen", "Gustavo", "Hine"],
        "action_items": [
            ("Gustavo", "order press belt", "today", "could_you", "address"),
            ("Hine", "fit press belt", "the twelfth", "reassigned", "name"),
            ("Parveen", "bring stall takings next meeting", "the third of October", "action_item_for", "name"),
        ],
        "decisions": [("picking is in pairs only this year", "pairs only picking")],
        "open_questions": [("whether to do the farmers' market stall again or sell through the farm shop",
                            "market stall farm shop")],
        "questions": [(14, "twelfth|12"), (15, "hine")],
        "non_items": [
            (9, "action_item", "question", "farmers market stall again"),
            (10, "decision", "not_decided", "sell through farm shop"),
            (11, "decision", "not_decided", "market stall farm shop"),
        ],
    },
    "rowing_club_committee": {
        "kind": "committee",
        "speakers": {"Shirin": V_F2, "Lachlan": V_US, "Abena": V_F3, "Fergus": V_M3, "Keiko": V_F4},
        "turns": [
            ("Shirin", "Let's get going, we've only got the hall till eight. First item is fees for next season."),
            ("Lachlan", "Insurance has gone up twelve percent. I'm proposing the adult fee goes up by twenty pounds, "
                        "and juniors stay where they are."),
            ("Abena", "Twenty feels steep. Could we do fifteen and trim the kit budget instead?"),
            ("Lachlan", "Fifteen works, as long as we skip the new oars this year."),
            ("Shirin", "Okay. Fifteen for adults, juniors unchanged, and the oars wait a year. Everyone happy with "
                       "that? Good. Abena, you'll need to get the new fees into the renewal emails before they go "
                       "out on the first."),
            ("Abena", "Fine. Next is the June regatta. Fergus, are we entering a junior eight?"),
            ("Fergus", "If I can find a full crew, yes. Right now I've only got seven."),
            ("Keiko", "Could Tariq's younger brother row? He's been coming to the Saturday sessions."),
            ("Fergus", "Maybe. I'll watch him on Saturday and let you know."),
            ("Shirin", "Good. Keiko, the social night, that was going to be the quiz in March, wasn't it?"),
            ("Keiko", "It was, but the function room's being refurbished, so I've called the quiz off. We'll do a "
                      "barbecue in May instead."),
            ("Lachlan", "Someone really needs to chase the boatyard about the coxless four. It's been six weeks."),
            ("Shirin", "Lachlan, please chase them this week, you've got the invoice."),
            ("Fergus", "Assistant, what did we settle on for the adult fee?"),
            ("Abena", "Assistant, when do the renewal emails go out?"),
        ],
        "people": ["Shirin", "Lachlan", "Abena", "Fergus", "Keiko", "Tariq"],
        "action_items": [
            ("Abena", "new fees renewal emails", "the first", "indirect", "address"),
            ("Fergus", "watch Tariq brother row", "Saturday", "i_will", "voice"),
            ("Lachlan", "chase boatyard coxless four", "this week", "imperative", "address"),
        ],
        "decisions": [
            ("the adult fee goes up by fifteen pounds and juniors stay unchanged", "adult fee fifteen juniors"),
            ("the new oars wait a year", "oars wait year"),
            ("the March quiz is off and there will be a barbecue in May instead", "barbecue May quiz"),
        ],
        "open_questions": [("whether there is a full crew for a junior eight at the June regatta",
                            "junior eight crew regatta")],
        "questions": [(13, "fifteen|15"), (14, "first|1st")],
        "non_items": [
            (6, "decision", "hypothetical", "enter junior eight regatta"),
            (10, "action_item", "cancelled", "quiz March function room"),
        ],
    },
    "lisbon_trip": {
        "kind": "family",
        "speakers": {"Camille": V_F3, "Jonas": V_M7, "Tamsin": V_F4, "Kemal": V_M2},
        "turns": [
            ("Camille", "Okay, Lisbon. Four nights over the May bank holiday. Has everybody actually asked for the "
                        "time off yet?"),
            ("Tamsin", "Mine's approved. I think Kemal is the only one who hasn't."),
            ("Kemal", "I know, I know. I'll put the request in tomorrow, I promise."),
            ("Camille", "Flights, then. The Friday morning ones are eighty euros cheaper than the evening ones."),
            ("Jonas", "Then it's the morning ones, even if we're up at four. Eighty euros is a lot of dinners."),
            ("Tamsin", "Fine, morning it is. Jonas, can you book them tonight, before the price goes up?"),
            ("Jonas", "Not tonight, I'm working late, and my card's nearly maxed out."),
            ("Camille", "Then let Tamsin book them, she collects the airline miles anyway."),
            ("Tamsin", "Fair enough, I'll do it tonight. Everyone send me your passport details by eight."),
            ("Camille", "And where are we staying? I found a flat in Alfama with a roof terrace, but it's three "
                        "hundred more than the hostel."),
            ("Kemal", "What if we asked Marta to come too and split the flat five ways?"),
            ("Tamsin", "Marta's in Chile until June, so that's a non-starter."),
            ("Jonas", "And just so nobody asks, I'm not renting a car. We'll get around by train."),
            ("Camille", "Then I honestly don't know about the flat. Let's all look tonight and vote on Thursday. "
                        "Also, does the palace in Sintra need booking ahead?"),
            ("Kemal", "No idea. Assistant, how much cheaper are the morning flights?"),
            ("Camille", "Assistant, what does Kemal still have to do?"),
        ],
        "people": ["Camille", "Jonas", "Tamsin", "Kemal", "Marta"],
        "action_items": [
            ("Kemal", "request time off", "tomorrow", "i_will", "voice"),
            ("Tamsin", "book flights", "tonight", "reassigned", "name"),
            (None, "send passport details", "eight", "imperative", None),
            (None, "look places stay vote", "Thursday", "we_will", None),
        ],
        "decisions": [
            ("take the Friday morning flights", "morning flights Friday"),
            ("no rental car, getting around by train", "train car"),
        ],
        "open_questions": [
            ("the flat in Alfama or the hostel", "flat Alfama hostel"),
            ("whether the palace in Sintra needs booking ahead", "Sintra palace booking"),
        ],
        "questions": [(14, "eighty|80"), (15, "request|time off|leave", "tomorrow")],
        "non_items": [
            (10, "action_item", "hypothetical", "ask Marta split five ways"),
            (12, "action_item", "negation", "renting car"),
        ],
    },
}
