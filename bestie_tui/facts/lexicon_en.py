"""The English lexicon of the fact reader: phrases → concepts, and the words that mark negation,
an ended state, a hedge, a change, a fix, exclusivity, time and plans.

Phrases are matched on Snowball stems of folded words (``text.stem``), longest first, so "lives",
"living" and "lived" all meet "live". A concept is a short English word naming what the phrase
means ("kid" and "children" are ``child``); cue concepts start with ``@`` and name the attribute
their phrase introduces (``@live`` → residence; see ``reader.ATTRIBUTES``). Words that are not in
the lexicon stay as their stem.
"""

from __future__ import annotations

#: phrase (space-separated words, matched on stems) → concept.
PHRASES: dict[str, str] = {
    # --- people and roles
    "kid": "child", "kids": "child", "child": "child", "children": "child", "son": "son", "sons": "son",
    "daughter": "daughter", "daughters": "daughter", "wife": "wife", "husband": "husband", "spouse": "spouse",
    "mom": "mother", "mum": "mother", "mother": "mother", "mama": "mother", "dad": "father", "father": "father",
    "papa": "father", "parents": "parents", "brother": "brother", "sister": "sister", "sibling": "sibling",
    "siblings": "sibling", "older sister": "sister", "younger sister": "sister", "older brother": "brother",
    "younger brother": "brother", "big sister": "sister", "little brother": "brother", "grandma": "grandmother",
    "grandmother": "grandmother", "family": "family", "families": "family", "family members": "family",
    "family member": "family", "grandpa": "grandfather", "grandfather": "grandfather", "uncle": "uncle",
    "aunt": "aunt", "cousin": "cousin", "nephew": "nephew", "niece": "niece", "friend": "friend",
    "best friend": "friend", "boss": "manager", "manager": "manager", "supervisor": "manager",
    "line manager": "manager", "colleague": "colleague", "coworker": "colleague", "co worker": "colleague",
    "teammate": "colleague", "partner": "partner", "business partner": "business partner",
    "boyfriend": "boyfriend", "girlfriend": "girlfriend", "fiance": "fiance", "fiancee": "fiance",
    "neighbour": "neighbour", "neighbor": "neighbour", "roommate": "roommate", "flatmate": "roommate",
    "in law": "in-law", "baby": "child", "toddler": "child", "pupil": "pupil", "student": "student",
    "dentist": "dentist", "doctor": "doctor", "gp": "doctor", "landlord": "landlord",
    "only child": "only child",
    # --- jobs (titles are values; a few synonyms meet)
    "driver 's license": "licence", "driver 's licence": "licence", "minutes": "minutes", "spend": "budget",
    "spending": "budget", "budget": "budget", "flight": "flight", "flights": "flight", "nurse": "nurse",
    "accountant": "accountant", "teacher": "teacher", "designer": "designer", "lawyer": "lawyer",
    "pediatrician": "pediatrician", "paediatrician": "pediatrician", "dev": "developer", "developer": "developer",
    "programmer": "developer", "software engineer": "engineer", "engineer": "engineer", "pm": "pm",
    "product manager": "pm", "project manager": "pm", "tech lead": "tech lead", "team lead": "team lead",
    "head of": "head", "cto": "cto", "ceo": "ceo",
    # --- things
    "phone": "phone", "cellphone": "phone", "cell phone": "phone", "mobile phone": "phone", "smartphone": "phone",
    "laptop": "laptop", "notebook computer": "laptop", "pc": "computer", "desktop": "computer", "computer": "computer",
    "tablet": "tablet", "ipad": "tablet", "watch": "watch", "smartwatch": "watch", "car": "car",
    "motorbike": "motorbike", "motorcycle": "motorbike", "scooter": "motorbike", "moped": "motorbike",
    "bike": "bicycle", "bicycle": "bicycle", "bus": "bus", "taxi": "taxi", "cab": "taxi",
    "uber": "taxi", "browser": "browser", "editor": "editor", "ide": "editor", "code editor": "editor",
    "licence": "licence", "license": "licence", "driving licence": "licence", "driving license": "licence",
    "driver licence": "licence", "driver license": "licence", "drivers license": "licence",
    "drivers licence": "licence",
    "home": "home", "house": "home", "flat": "home", "apartment": "home", "office": "office",
    "workplace": "office", "hq": "office", "remote": "remote", "wfh": "remote", "work from home": "remote",
    "working from home": "remote", "remotely": "remote", "company": "company", "firm": "company",
    "emoji": "emoji", "emojis": "emoji", "emoticon": "emoji", "smiley": "emoji",
    "brief": "brief", "short": "brief", "concise": "brief", "terse": "brief",
    "lengthy": "long", "verbose": "long", "long": "long",
    "peanut": "peanut", "peanuts": "peanut",
    "shellfish": "shellfish", "seafood": "seafood", "sea food": "seafood",
    "coffee": "coffee", "espresso": "coffee", "latte": "coffee", "cappuccino": "coffee", "americano": "coffee",
    "tea": "tea", "green tea": "green tea", "milk": "milk",
    "dairy": "dairy", "beer": "beer", "wine": "wine", "red wine": "wine",
    "alcohol": "alcohol", "booze": "alcohol", "liquor": "alcohol", "whisky": "spirits", "whiskey": "spirits",
    "vodka": "spirits", "cocktail": "cocktail", "meat": "meat", "red meat": "red meat", "beef": "beef",
    "steak": "beef", "pork": "pork", "bacon": "pork", "ham": "pork", "lamb": "lamb",
    "burger": "meat", "burgers": "meat", "hamburger": "meat", "sausage": "meat",
    "salami": "pork", "pepperoni": "pork", "ribs": "pork", "brisket": "beef", "veal": "beef", "turkey": "meat",
    "duck": "meat", "chicken": "chicken",
    "fish": "fish", "salmon": "fish", "tuna": "fish", "shrimp": "shrimp", "prawn": "shrimp", "egg": "egg",
    "eggs": "egg", "cheese": "dairy", "butter": "dairy", "yogurt": "dairy", "gluten": "gluten", "bread": "gluten",
    "pasta": "gluten", "wheat": "gluten", "sugar": "sugar", "cake": "cake", "candy": "candy",
    "sweets": "sweets", "dessert": "dessert", "chocolate": "chocolate", "ice cream": "ice cream", "soda": "soda",
    "fried": "fried", "fry": "fried", "fries": "fried", "deep fried": "fried", "spicy": "spicy",
    "chili": "spicy", "chilli": "spicy", "lactose intolerant": "lactose intolerance",
    "lactose intolerance": "lactose intolerance", "dog": "dog", "dogs": "dog", "puppy": "dog",
    "puppies": "dog", "cat": "cat", "kitten": "cat", "surgery": "surgery", "operation": "surgery",
    "hospital": "hospital", "hospitalised": "hospital", "hospitalized": "hospital",
    "abroad": "abroad", "overseas": "abroad", "cigarette": "smoke", "cigarettes": "smoke", "smoke": "smoke",
    "smoking": "smoke", "vape": "smoke",
    "deploy": "deploy", "deployment": "deploy", "release": "deploy", "ship": "deploy",
    "push to production": "deploy", "pushed to production": "deploy", "production": "production",
    "standup": "standup", "stand up": "standup", "daily": "daily", "meeting": "meeting", "sync": "meeting",
    "call": "call", "appointment": "appointment", "lesson": "lesson", "lessons": "lesson", "class": "class",
    "deadline": "deadline", "due": "deadline", "due date": "deadline", "launch": "launch",
    "biweekly": "biweekly", "fortnightly": "biweekly", "every other": "biweekly", "every second": "biweekly",
    "marathon": "marathon", "race": "race", "morning person": "morning person", "early bird": "morning person",
    "night owl": "night owl", "vegetarian": "vegetarian", "veggie": "vegetarian", "vegan": "vegan",
    "pescatarian": "pescatarian", "lacto ovo": "vegetarian", "lacto ovo vegetarian": "vegetarian",
    "left handed": "left-handed", "lefthanded": "left-handed", "left hand": "left-handed",
    "right handed": "right-handed", "righthanded": "right-handed", "right hand": "right-handed",
    "english": "english", "vietnamese": "vietnamese", "french": "french", "spanish": "spanish",
    "german": "german", "chinese": "chinese", "mandarin": "chinese", "japanese": "japanese", "korean": "korean",
    "thai": "thai", "italian": "italian", "portuguese": "portuguese", "russian": "russian", "arabic": "arabic",
    "hindi": "hindi", "indonesian": "indonesian", "dutch": "dutch",
    "maths": "math", "math": "math", "mathematics": "math", "high school": "high school",
    "secondary school": "high school", "primary school": "primary school", "elementary school": "primary school",
    "primary": "primary school", "news digest": "digest", "digest": "digest", "newsletter": "digest",
    "nearsighted": "myopia", "short sighted": "myopia", "shortsighted": "myopia", "myopia": "myopia",
    "farsighted": "hyperopia", "long sighted": "hyperopia",
    "allergic": "@allergy", "allergy": "@allergy", "allergies": "@allergy",
    # --- attribute cues (see reader.ATTRIBUTES)
    "live": "@live", "living": "@live", "reside": "@live", "based in": "@live", "base in": "@live",
    "home is in": "@live", "stay in": "@live",
    "move": "@move", "moved": "@move", "relocate": "@move", "relocated": "@move", "migrate": "@move",
    "grew up": "@hometown", "grow up": "@hometown", "hometown": "@hometown", "come from": "@hometown",
    "born": "@born", "birthday": "@birthday", "birth date": "@birthday", "date of birth": "@birthday",
    "work at": "@employer", "work for": "@employer", "works at": "@employer", "employed by": "@employer",
    "employed at": "@employer", "job at": "@employer", "new job at": "@employer", "join": "@join",
    "joined": "@join", "work as": "@title", "title": "@title", "job title": "@title", "promote to": "@title",
    "promoted to": "@title", "report to": "@manager", "reports to": "@manager",
    "call me": "@name", "go by": "@name", "address me as": "@name", "my name is": "@name", "name is": "@name",
    "named": "@named", "called": "@named", "first name": "@name",
    "reply": "@reply", "replies": "@reply", "answer": "@reply", "answers": "@reply", "respond": "@reply",
    "write to me": "@reply", "message me": "@reply", "messaging me": "@reply",
    "speak": "@speak", "fluent in": "@speak", "learn": "@learn", "learning": "@learn", "study": "@learn",
    "favourite": "@favourite", "favorite": "@favourite", "fave": "@favourite",
    "weigh": "@weight", "weight": "@weight", "tall": "@height", "height": "@height",
    "blood type": "@blood type", "blood group": "@blood type", "blood pressure": "@blood pressure",
    "grade": "@grade", "year": "year", "age": "@age", "years old": "@age", "turn": "@age", "turned": "@age",
    "go to bed": "@bedtime", "bedtime": "@bedtime", "sleep at": "@bedtime", "stay up": "@bedtime",
    "stayed up": "@bedtime", "wake up": "@wake", "get up": "@wake", "sleep in": "@wake",
    "married": "@married", "marry": "@married", "wed": "@married", "single": "@single", "unmarried": "@single",
    "engaged": "@engaged", "divorced": "@divorced", "widowed": "@widowed", "retired": "@retired",
    "retire": "@retired",
    "commute": "@commute", "commuting": "@commute",
    "like": "@like", "love": "@like", "enjoy": "@like", "adore": "@like", "fond of": "@like", "fan": "@like",
    "big fan": "@like", "into": "@like", "prefer": "@prefer", "rather": "@prefer", "hate": "@dislike",
    "dislike": "@dislike", "detest": "@dislike", "loathe": "@dislike", "can not stand": "@dislike",
    "avoid": "@avoid", "afraid of": "@afraid", "scared of": "@afraid", "fear": "@afraid",
    "allowed": "@allowed", "permitted": "@allowed", "ok": "@allowed", "forbidden": "@forbidden",
    "banned": "@forbidden", "prohibited": "@forbidden", "free": "@free", "open": "@open", "closed": "@closed",
    "decided": "@decide", "decide": "@decide", "agreed": "@decide", "agree": "@decide",
    "approved": "@approve", "approve": "@approve", "related": "@related",
    "lead": "@lead", "leads": "@lead", "runs the": "@lead", "in charge of": "@lead",
    "on call": "on call", "on-call": "on call",
    "switch to": "@switch", "change to": "@switch", "go with": "@switch", "written in": "@write",
    "write in": "@write", "written": "@write", "school": "school", "pupil at": "@school", "student at": "@school",
    "attend": "@school", "go to school": "@school", "work from": "@workplace", "working from": "@workplace",
    "work in": "@workplace", "went into": "@workplace", "go into": "@workplace",
}

#: Words whose stem would meet another concept, matched as written first ("fishing" is not fish).
EXACT: dict[str, str] = {
    "fishing": "fishing", "hunting": "hunting", "cooking": "cooking", "baking": "baking", "drinking": "drink",
    "smoker": "smoke", "vegetarian food": "vegetarian food", "vegan food": "vegan food",
    # a meat dish named by what stands in for the meat is no meat
    "veggie burger": "vegetarian food", "veggie burgers": "vegetarian food", "vegan burger": "vegan food",
    "vegan burgers": "vegan food", "vegetarian burger": "vegetarian food", "vegetarian burgers": "vegetarian food",
    "plant based burger": "vegan food", "plant based burgers": "vegan food", "tofu burger": "vegetarian food",
    "veggie sausage": "vegetarian food", "veggie sausages": "vegetarian food", "vegan sausage": "vegan food",
    "vegan sausages": "vegan food", "vegan cheese": "vegan food", "vegan ice cream": "vegan food",
    "vegetarian restaurant": "vegetarian food", "vegan restaurant": "vegan food", "fished": "fishing",
    "fly": "flight", "flew": "flight", "flying": "flight", "color": "colour", "colors": "colour", "colour": "colour",
    "no trouble": "fine", "no problem": "fine", "no problems": "fine", "no issue": "fine", "no issues": "fine",
    "billed": "@billed", "charged": "@billed", "billing": "@billed", "relatives": "relative",
    "not a problem": "fine",
    "wedding": "wedding", "weddings": "wedding",
    "wedding planner": "wedding planner", "free time": "free time", "spare time": "free time",
    "wedding day": "wedding", "wedding anniversary": "anniversary",
    # colours, as written only ("oranges" are fruit; a colour opening a text is not a name: "Blue is preferred.")
    "red": "red", "blue": "blue", "green": "green", "yellow": "yellow", "purple": "purple", "pink": "pink",
    "orange": "orange", "black": "black", "white": "white", "grey": "grey", "gray": "grey", "brown": "brown",
    "teal": "teal", "violet": "violet", "turquoise": "turquoise", "navy": "navy", "beige": "beige", "gold": "gold",
    "silver": "silver",
    "on the way": "on the way",
}
#: Words that negate the clause they are in ("without" negates only its noun, so it is not here).
NEGATIONS = frozenset({"not", "no", "never", "nor", "none", "nothing", "neither", "cannot", "nobody"})
# The flag phrases below are matched on folded words as written (not stems): every form is listed.
#: Phrases that say a state has ended: a change, not a denial.
ENDED = ("no longer", "not anymore", "anymore", "any more", "stop", "stops", "stopped", "stopping", "quit",
         "quits", "quitting", "gave up", "give up", "given up", "no more", "ex", "former", "formerly",
         "left my", "left the", "left our", "miss eating", "miss drinking", "miss smoking", "miss playing",
         "miss having", "miss living", "miss working")
#: Phrases that report a change or a new value ("now", "switched").
CHANGE = ("now", "switch", "switched", "switching", "change", "changed", "changing", "from now on", "these days",
          "nowadays", "instead", "new", "start", "started", "starting", "begin", "began", "become", "became",
          "reschedule", "rescheduled", "rebook", "rebooked", "postpone", "postponed", "push back", "pushed back",
          "slip", "slipped", "cut", "raise", "raised", "upgrade", "upgraded", "hand over", "handed over",
          "took over", "take over", "moved", "move", "moving", "promote", "promoted", "turned", "down to",
          "up to", "lately", "recently", "just", "migrated", "got married", "get married", "again",
          "this quarter", "this year", "any longer", "since then", "from today",
          "starting today", "going forward")
#: Phrases of an explicit fix of an older, wrong value.
FIX = ("turns out", "turn out", "turned out", "actually", "in fact", "after all", "correction",
       "i was wrong", "mistaken", "by mistake", "confirmed", "to be precise", "to correct")
#: Hedges.
HEDGES = ("i think", "think", "probably", "maybe", "perhaps", "i guess", "guess", "not sure", "not 100",
          "seem", "seems", "might", "possibly", "apparently", "i believe", "if i remember", "i suppose")
#: Words that make a claim exclusive ("only Vietnamese").
ONLY = ("only", "exclusively", "nothing but", "solely")
#: "Never" about one's whole past (falsified by any event), not a habit.
EVER = ("have never", "has never", "had never", "never been", "never had", "never ever", "not once", "ever")
#: Past habits and past states: consistent with a different present ("used to live in Berlin").
PAST = ("used to", "formerly", "previously", "back then", "as a kid", "as a child", "in the past",
        "grew up", "growing up", "when i was", "in college", "in high school", "as a teenager", "back in",
        "was a", "were a", "i was once", "at the age of")
#: Plans and wishes: not a statement about now.
PLAN = ("want to", "wants to", "wanted to", "would like to",
        "would love to", "plan to", "plans to", "planning to", "hope to", "hopes to", "someday",
        "some day", "one day", "going to", "on the way", "expecting", "soon", "turning", "will", "wish", "dream of", "dreams of",
        "thinking of", "thinking about", "getting married", "am moving to", "are moving to")
#: Time words of a one-off event ("last night", "this morning", "on Sunday night").
EVENT_TIMES = ("yesterday", "last night", "this morning", "tonight", "today", "this afternoon",
               "this evening", "last saturday", "last sunday", "last monday", "last tuesday", "last wednesday",
               "last thursday", "last friday", "last weekend", "last week", "last month", "last year", "ago",
               "the other day", "on saturday", "on sunday", "on monday", "on tuesday", "on wednesday",
               "on thursday", "on friday", "sunday night", "saturday night", "friday night", "this week",
               "at the party", "at the wedding", "at a party", "at a wedding", "wedding", "party", "earlier today",
               "this weekend", "last time", "once")
#: Habit words: a pattern, not a one-off ("every morning", "most nights", "usually").
HABITS = ("every", "each", "most nights", "most days", "most mornings", "usually", "always", "daily", "weekly",
          "often", "generally", "several times", "times a week", "per week", "a week", "nightly", "regularly",
          "everywhere", "every day", "most evenings", "all the time", "whenever")
#: A state that has held for long: not a recent change ("retired long ago").
LONG_AGO = ("long ago", "for years", "for ages", "since forever", "all my life", "years ago")
#: Past-tense verbs of one-off events (not changes of state).
EVENT_VERBS = frozenset({"had", "ate", "drank", "took", "went", "tried", "stayed", "pushed", "shipped", "asked",
                         "petted", "visited", "joined", "ordered", "grabbed", "got", "saw", "met", "flew",
                         "skipped", "played", "smoked", "used", "wore", "slept", "cooked", "bought", "called",
                         "spent", "worked", "came", "made", "did", "watched"})
#: Clause boundaries inside a text (besides punctuation).
CLAUSE_WORDS = frozenset({"but", "because", "since", "although", "though", "while", "so", "whereas", "unless", "except",
                          "otherwise"})
#: Function words: never content, never a value.
FUNCTION = frozenset(
    "a an the and or of to in on at for with by from is are was were be been being am i me my mine myself we "
    "our ours us you your he she it its they them their this that these those do does did doing have has had "
    "having as so just also about into than then there here very really s user owner users owners the "
    "is am would should could can may might must shall will please thanks thank it's its still anymore any "
    "some all every each most more much many both such own same other another what which who whom whose "
    "when where why how up down out off over under again further once too yet ever even quite rather "
    "around roughly about approximately near nearly almost let lets want wants wanted need needs needed "
    "get gets got go goes going went make made keep kept kind sort lot lots thing things ones someone "
    "something everything anything nothing now usually always generally really actually definitely "
    "mention mentioned say said says tell told state stated note noted like".split())
#: Pronouns that are the owner (first person), and that are the owner after "the user said …".
SELF = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "user", "owner", "users", "owners"})
THIRD = frozenset({"he", "she", "him", "her", "his", "hers", "they", "them", "their"})
#: Person nouns: a possessive before one of these names a person, not an attribute ("my wife" …).
PERSON_CONCEPTS = frozenset({
    "child", "son", "daughter", "wife", "husband", "spouse", "mother", "father", "parents", "brother", "sister",
    "sibling", "grandmother", "grandfather", "uncle", "aunt", "cousin", "nephew", "niece", "friend",
    "manager", "colleague", "partner", "business partner", "boyfriend", "girlfriend", "fiance", "neighbour",
    "roommate", "in-law", "pupil", "student", "dentist", "doctor", "landlord", "teacher", "nurse", "family",
    "member", "people", "relative", "folk", "kid", "grandparent",
})
#: Honorifics before a name ("Ms. Thao", "Dr. Lam").
HONORIFICS = frozenset({"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "madam"})
