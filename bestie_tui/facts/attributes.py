"""The attributes the fact reader knows, how each behaves, and the cue tables that name them.

``ATTRIBUTES`` maps an attribute to its ``Spec``: ``single`` (one value at a time: a residence, an
employer; otherwise many values can hold together: pets, allergies, likes), ``mutable`` (a new
value replaces the old one; a second birthday or handedness is a contradiction instead) and
``grows`` (ages and school grades only increase). ``Fact`` is one attribute a text states.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True)
class Spec:
    """How an attribute behaves (see the module docstring)."""

    single: bool
    mutable: bool = True
    grows: bool = False


ATTRIBUTES: dict[str, Spec] = {
    # a hometown is named at many scales ("Ontario", "Canada"): two of them are not a contradiction
    "residence": Spec(True), "location": Spec(True), "hometown": Spec(False, False), "birthday": Spec(True, False),
    "birth year": Spec(True, False), "employer": Spec(True), "work location": Spec(True), "title": Spec(True),
    "manager": Spec(True), "lead": Spec(True), "name": Spec(True), "reply language": Spec(True),
    "written language": Spec(True), "languages": Spec(False), "learning": Spec(False), "favourite": Spec(True),
    "weight": Spec(True), "height": Spec(True), "blood type": Spec(True, False), "blood pressure": Spec(True),
    "grade": Spec(True, True, True), "age": Spec(True, True, True), "school": Spec(True), "bedtime": Spec(True),
    "wake time": Spec(True), "marital": Spec(True), "employment": Spec(True), "commute": Spec(True),
    "like": Spec(False), "prefer": Spec(True), "fear": Spec(False), "permission": Spec(True),
    "pricing": Spec(True), "opening": Spec(True), "decision": Spec(True), "approval": Spec(True),
    "relation": Spec(False), "allergy": Spec(False), "diet": Spec(True), "handedness": Spec(True, False),
    "chronotype": Spec(True), "schedule": Spec(True), "deadline": Spec(True), "tool": Spec(True),
    "pets": Spec(False), "children": Spec(False), "condition": Spec(False), "emoji": Spec(True),
    "reply length": Spec(True), "theme": Spec(True), "of": Spec(True), "have": Spec(False), "do": Spec(False),
    "is": Spec(False), "travel": Spec(False), "siblings": Spec(True, False), "named": Spec(False),
    "capability": Spec(False), "smoking": Spec(True), "consume": Spec(False), "role": Spec(False),
}
#: Roles one person holds at a time for the owner ("my manager", "my dentist"); others (friend,
#: colleague) can be many people.
SINGLE_ROLES = frozenset({"manager", "dentist", "doctor", "wife", "husband", "spouse", "landlord"})

#: Cue → attribute; the rule may refine it (a switch to a browser is ``tool``/``browser``).
CUE_ATTRIBUTE = {
    "@live": "residence", "@move": "residence", "@at": "location", "@hometown": "hometown", "@born": "birth",
    "@birthday": "birthday", "@employer": "employer", "@join": "employer", "@title": "title",
    "@manager": "manager", "@name": "name", "@named": "named", "@reply": "reply language",
    "@write": "written language", "@speak": "languages", "@learn": "learning", "@favourite": "favourite",
    "@favourite food": "favourite", "@weight": "weight", "@height": "height", "@blood type": "blood type",
    "@blood pressure": "blood pressure", "@grade": "grade", "@age": "age", "@bedtime": "bedtime",
    "@wake": "wake time", "@married": "marital", "@single": "marital", "@engaged": "marital",
    "@divorced": "marital", "@widowed": "marital", "@marital": "marital", "@retired": "employment",
    "@commute": "commute", "@like": "like", "@prefer": "prefer", "@dislike": "like", "@avoid": "like",
    "@afraid": "fear", "@allowed": "permission", "@forbidden": "permission", "@free": "pricing",
    "@billed": "pricing", "@open": "opening", "@closed": "opening", "@decide": "decision",
    "@approve": "approval", "@related": "relation", "@lead": "lead", "@allergy": "allergy",
    "@switch": "switch", "@school": "school", "@workplace": "work location",
}
#: Cues that name their value themselves, with its polarity (``@single`` is "married", denied).
CUE_VALUE = {"@married": ("married", 1), "@single": ("married", -1), "@engaged": ("engaged", 1),
             "@divorced": ("divorced", 1), "@widowed": ("widowed", 1), "@retired": ("retired", 1),
             "@allowed": ("allowed", 1), "@forbidden": ("allowed", -1), "@free": ("free", 1),
             "@billed": ("free", -1), "@open": ("open", 1), "@closed": ("open", -1), "@related": ("related", 1)}
CUE_VALENCE = {"@dislike": -1, "@avoid": -1}
#: Cues that are nouns (they can be what a possessive is about: "my favourite …", "Mai's birthday").
NOUN_CUES = frozenset({"@favourite", "@favourite food", "@birthday", "@title", "@weight", "@height",
                       "@blood type", "@blood pressure", "@bedtime", "@age", "@grade", "@commute", "@allergy",
                       "@hometown", "@marital", "@name"})
#: Attributes whose value is measured (taken from the text's quantities).
MEASURED = {"age": ("age", "number"), "grade": ("grade", "number"), "weight": ("mass",), "height": ("length",),
            "bedtime": ("time", "number"), "wake time": ("time", "number"), "birthday": ("date",),
            "birth": ("date", "year"), "commute": ("length", "duration")}
#: Concepts that state an attribute on their own: concept → (attribute, value, valence).
STATE_CONCEPTS = {
    "vegetarian": ("diet", "vegetarian", 1), "vegan": ("diet", "vegan", 1), "pescatarian": ("diet", "pescatarian", 1),
    "omnivore": ("diet", "omnivore", 1), "left-handed": ("handedness", "left", 1),
    "right-handed": ("handedness", "right", 1), "morning person": ("chronotype", "morning", 1),
    "night owl": ("chronotype", "night", 1), "only child": ("siblings", "none", 1),
    "lactose intolerance": ("condition", "lactose intolerance", 1),
    "myopia": ("condition", "myopia", 1), "hyperopia": ("condition", "hyperopia", 1),
    "emoji": ("emoji", "emoji", 1), "brief": ("reply length", "brief", 1), "long": ("reply length", "brief", -1),
    "dark theme": ("theme", "dark", 1), "light theme": ("theme", "light", 1),
    "remote": ("work location", "home", 1), "smoke": ("smoking", "smoke", 1),
    "go to work": ("employment", "retired", -1),
}
TOOL_NOUNS = frozenset({"phone", "laptop", "computer", "tablet", "watch", "car", "motorbike", "browser", "editor",
                        "monitor"})
VEHICLES = frozenset({"motorbike", "car", "bus", "taxi", "bicycle"})
EVENT_NOUNS = frozenset({"standup", "meeting", "call", "appointment", "lesson", "class", "review", "retro",
                         "launch", "deadline", "flight", "gym", "lunch", "dinner", "schedule",
                         "deploy", "planning", "demo", "interview", "exam", "trip", "party", "training", "digest",
                         "deliver", "release", "sync", "workshop", "rehearsal", "practice", "checkup"})
JOBS = frozenset({"engineer", "developer", "pediatrician", "doctor", "teacher", "nurse", "accountant", "pm",
                  "tech lead", "team lead", "head", "cto", "ceo", "designer", "lawyer", "manager", "dentist",
                  "analyst", "scientist", "consultant", "architect", "intern", "director", "founder"})
LANGUAGES = frozenset({"english", "vietnamese", "french", "spanish", "german", "chinese", "japanese", "korean",
                       "thai", "italian", "portuguese", "russian", "arabic", "hindi", "indonesian", "dutch"})
CONSUME_VERBS = frozenset({"drink", "eat", "ate", "drank", "an", "uong", "consum", "have", "has", "had", "take"})
SCHOOLS = frozenset({"school", "primary school", "high school", "kindergarten", "university", "college"})
#: What one attends without being enrolled there ("attended a pride parade", "a council meeting"), as
#: concepts and as stems (``text.words.stem``): not a school.
GATHERINGS = EVENT_NOUNS | frozenset({
    "parad", "parade", "confer", "conference", "convent", "convention", "event", "concert", "festiv", "festival",
    "wed", "wedding", "ceremoni", "funer", "ralli", "meet", "meetup", "seminar", "lectur", "webinar", "group",
    "session", "show", "exhibit", "fair", "match", "game", "servic", "retreat", "camp", "talk", "council",
    "support group", "celebr", "gather", "premier", "screen", "protest", "march", "marathon", "race"})
#: What one joins as a member, not as an employee ("joined a chess club", "a gym", "an online group").
MEMBERSHIPS = frozenset({
    "group", "club", "communiti", "community", "program", "programm", "forum", "platform", "gym", "church",
    "tournament", "leagu", "choir", "band", "brigad", "societi", "associ", "movement", "network", "circl",
    "class", "cours", "meetup", "server", "chat", "union", "guild", "cult", "fandom", "book club"})
#: Words of a span of time, which "works for" can take in place of an employer ("works for hours").
TIME_SPANS = frozenset({"long", "time", "longtim", "while", "year", "month", "week", "day", "hour", "minut",
                        "age", "decad", "ever", "now", "sinc", "longer"})


class Fact(NamedTuple):
    """One attribute a text states: ``attribute`` (a key of ``ATTRIBUTES``), ``key`` (what it is
    of: a tool kind, a favourite's noun, the event of a schedule, a role), ``value`` (folded concepts
    and words; measured values as ``kind:value``), ``value_text`` (as written), ``polarity`` (+1/−1)
    and, for "from X to Y", the ``old_value``."""

    attribute: str
    key: str
    value: frozenset[str]
    value_text: str
    polarity: int = 1
    old_value: frozenset[str] = frozenset()

    @property
    def spec(self) -> Spec:
        if self.attribute == "role":
            return Spec(self.key in SINGLE_ROLES)
        return ATTRIBUTES.get(self.attribute, Spec(False))

    def label(self) -> str:
        if not self.key:
            return self.attribute
        if self.attribute in ("do", "have"):
            return f"{self.attribute} {self.key}"
        if self.attribute == "role":
            return f"owner's {self.key}"
        return f"{self.attribute} ({self.key})"


__all__ = ["Spec", "ATTRIBUTES", "Fact", "CUE_ATTRIBUTE", "CUE_VALUE", "STATE_CONCEPTS", "SINGLE_ROLES"]
