"""How two memories relate: ``relate(older, newer)`` → ``Relation``. One function, used by the
doctor, the cleanup plan, triage, the write path and prompt assembly.

Kinds (``KINDS``), as the owner acts on them:

* ``duplicate``: both say the same fact; keep one.
* ``correction``: same subject and attribute, and the newer value replaces the older (a move, a new
  job, a birthday that raised an age, "no longer", "turns out"); the newer supersedes the older.
* ``contradiction``: they cannot both hold and the newer does not read as an update; the owner decides.
* ``event_vs_state``: the older is a lasting state or habit and the newer a one-off event that seems
  to break it without replacing it (one drink at a wedding); at most flagged.
* ``compatible``: both can be true.

The decision, in order (each step says why in ``Relation.reason``):

1. the same normalised text is a duplicate;
2. what one states excludes what the other says (``knowledge.EXCLUDES``: an only child and a
   sister; a negated category and one of its members: "no alcohol" and champagne; a mention that
   implies a value: "my wife" and "not married");
3. different subjects are compatible;
4. facts of the same attribute and key are compared: value (words and quantities), polarity and
   the flags of the newer text (ended, change, fix, event, only, past, plan) decide;
5. texts the reader cannot frame are compared by their content words.

Those five steps are the reader's rules (``rule_relation``). ``relate`` then weighs them with the
doctor's model (``facts.model``, fitted on labelled pairs; ``facts.pair_features``), for two texts
that are ``close`` (the same topic):

* a verdict the rules framed stands, with its reason; the model gives its confidence;
* where the rules found nothing (compatible), the model's label is the verdict, its evidence the
  features that weighed most; a pair it sees as related but cannot place is ``related``;
* ``Relation.strong`` (a default action may follow) only on strong evidence: the same text, or a
  rule verdict of the same fact (``STRONG_BASES``) that the model does not call compatible.

Texts that are not close keep the rules' verdict, unless the model is sure of a label
(``Model.far``, calibrated so that about one unrelated pair in a hundred gets one): then that label,
weak, never a default action, never "related". Without the model file the rules decide alone.

Pure: plain text and optional timestamps in, a ``Relation`` out; no records, no database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import NamedTuple

from bestie_tui.facts import dates
from bestie_tui.facts.attributes import Fact
from bestie_tui.facts.knowledge import EXCLUDES, KNOWN_CATEGORIES, categories_of
from bestie_tui.facts.reader import Reading, read
from bestie_tui.facts.subjects import same_subject

KINDS = ("duplicate", "correction", "contradiction", "event_vs_state", "compatible")
#: A pair the doctor finds close but cannot place: shown to the owner as "related — review".
RELATED = "related"
#: Attributes whose new value comes with a dated event ("we moved in January", "got married on
#: Saturday"): such a dated statement is a correction, not a one-off event against a state.
STATUS = frozenset({"residence", "employer", "title", "manager", "marital", "age", "grade", "tool", "name",
                    "employment", "school", "lead", "location", "hometown", "of", "role", "birthday", "birth year"})
#: Attributes a wish states as a preference ("I want replies in English").
_PREFERENCES = frozenset({"reply language", "written language", "name", "reply length", "emoji", "theme", "prefer"})
#: Attributes whose value is a time of day.
_TIMED = frozenset({"bedtime", "wake time", "schedule"})
#: Content-word overlap (Dice) from which two unframed texts are the same statement.
DUPLICATE_OVERLAP = 0.8
#: … and from which two unframed texts of opposite polarity contradict each other.
OPPOSITE_OVERLAP = 0.6


@dataclass(frozen=True)
class Relation:
    """``kind`` (one of ``KINDS``), ``reason`` (one line for the owner), and where known the
    ``subject``, ``attribute`` and the ``old_value`` → ``new_value`` as written."""

    kind: str
    reason: str
    attribute: str | None = None
    old_value: str | None = None
    new_value: str | None = None
    subject: str | None = None
    #: what decided it: ``same`` (equal values), ``value`` (another value), ``negation`` / ``antonym``
    #: (opposite polarity), ``ended``, ``fix``, ``change``, ``event``, ``exclusion`` (a state and what
    #: it excludes), ``words`` (content words), ``text`` (the same text), ``subject``, ``scope``,
    #: ``past``, ``plan``, ``many``, ``denied``, ``none``
    basis: str = "none"
    #: strong evidence (an exact restatement, an explicit change, the same single-valued attribute
    #: with another value) that the rules and the model agree on: only then may a tool act by
    #: default (a merge or supersede selected, "replaces #N", an older record left out of the prompt)
    strong: bool = False
    #: the model's probability of ``kind`` (``None`` when no model decided)
    confidence: float | None = None
    #: what the doctor can show for its verdict, one short phrase each, strongest first
    evidence: tuple[str, ...] = ()
    #: for ``related``: the label the model leans to, when any
    leaning: str | None = None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "reason": self.reason, "subject": self.subject, "attribute": self.attribute,
                "old_value": self.old_value, "new_value": self.new_value, "basis": self.basis,
                "strong": self.strong, "confidence": None if self.confidence is None else round(self.confidence, 3),
                "evidence": list(self.evidence)}


def relate(older: str, newer: str, older_at: datetime | None = None, newer_at: datetime | None = None, *,
           similarity: float | None = None, threshold: float = DUPLICATE_OVERLAP) -> Relation:
    """The relation of memory ``newer`` to memory ``older`` (see the module docstring).

    Args:
        older, newer: the two memory texts; ``newer`` is the later statement.
        older_at, newer_at: when each was stated (naive UTC); when both are given and ``older_at``
            is the later, the two are swapped so that the newer is always the later statement.
        similarity: the caller's similarity of the two texts (0–1, e.g. the doctor's TF-IDF cosine);
            used in place of the content-word overlap for texts the reader cannot frame.
        threshold: the similarity (or overlap) from which two unframed texts are duplicates.

    Returns:
        A ``Relation``. Never raises; a text the reader cannot frame is compared word by word.
    """
    if older_at is not None and newer_at is not None and older_at > newer_at:
        older, newer = newer, older
    return _judged(older, newer, None if similarity is None else round(similarity, 4), threshold)


#: The model's probability of a label from which a pair it finds related is given that label (weak,
#: never a default) rather than "related — review": well above the 0.2 of five equal labels.
LEANING = 0.3
#: What a rule verdict must rest on to be strong (see ``Relation.strong``).
STRONG_BASES = {"duplicate": frozenset({"text", "same"}), "correction": frozenset({"change", "ended", "fix", "value"})}


@lru_cache(maxsize=65536)
def _judged(older: str, newer: str, similarity: float | None, threshold: float) -> Relation:
    """The rules' verdict weighed by the model (``facts.model``): the model's label wins; the rules'
    reason and values are kept where both agree; a pair the model finds related but cannot place is
    ``related``; ``strong`` only where both agree on strong evidence."""
    from dataclasses import replace

    from bestie_tui.facts import model as learned

    rule = _relate(older, newer, similarity, threshold)
    if rule.basis == "text":
        return replace(rule, strong=True, confidence=1.0, evidence=("the same text",))
    m = learned.active()
    ruled = replace(rule, strong=rule.kind in STRONG_BASES and rule.basis in STRONG_BASES[rule.kind])
    if m is None or rule.kind == "compatible" and _numbered_things(rule, older, newer):
        return ruled  # no model; or a list of numbered things: the rules stand
    near = rule.kind != "compatible" or close(older, newer)
    if not near and (m.far > 1 or rule.basis == "subject"):
        return ruled  # two subjects the reader told apart stay apart
    x = pair_features(older, newer)
    p = m.probabilities(x)
    numbers_apart = bool(x.get("quantities_differ") or x.get("numbers_differ") and not x.get("quantities_agree"))
    if numbers_apart:
        p = dict(p, duplicate=0.0)  # two records whose numbers differ are never one fact ("6B" / "6C")
    top = max(m.labels, key=lambda k: (p[k], -m.labels.index(k)))
    if not near:
        # texts that share nothing the doctor can point at (no word or stem, concept, specific frame,
        # kind of quantity or spelling): most such pairs in a store are simply two topics, so the
        # model names a label only when it is sure (``Model.far``, calibrated on unrelated pairs of
        # the training texts), weak, and never "related — review"
        if top == "compatible" or p[top] < m.far:
            return replace(ruled, confidence=p["compatible"])
        evidence = _evidence(m, x, top, older, newer)
        return Relation(top, f"{_KIND_WORDS[top]}: " + "; ".join(evidence or ("the model's reading",)),
                        rule.attribute, rule.old_value, rule.new_value, rule.subject, "model",
                        confidence=p[top], evidence=evidence)
    if rule.kind != "compatible" and not (rule.kind == "duplicate" and numbers_apart):
        # the reader framed a relation: it stands, with its reason; strong only where the model agrees
        # strong: the rules rest on strong evidence (the same value, an explicit change, another value
        # of a single-valued attribute: "iPhone 14" → "iPhone 15") and the model does not call the
        # pair compatible
        strong = rule.kind in STRONG_BASES and rule.basis in STRONG_BASES[rule.kind] and (
            top == rule.kind and p[top] >= m.strong or top != "compatible") and _purpose(older) == _purpose(newer)
        return replace(rule, strong=strong, confidence=p[rule.kind],
                       evidence=(rule.reason,))  # the rules say why
    if top == "compatible":
        if p["compatible"] >= m.related:
            return replace(rule, kind="compatible", confidence=p["compatible"]) if rule.kind == "compatible" else \
                Relation("compatible", rule.reason if rule.kind == "compatible" else "different facts",
                         basis="model", confidence=p["compatible"])
        leaning = max((k for k in m.labels if k != "compatible"), key=lambda k: (p[k], -m.labels.index(k)))
        evidence = _evidence(m, x, leaning, older, newer)
        if p[leaning] >= LEANING:
            return Relation(leaning, f"{_KIND_WORDS[leaning]}: " + "; ".join(evidence or ("the model's reading",)),
                            rule.attribute, rule.old_value, rule.new_value, rule.subject, "model",
                            confidence=p[leaning], evidence=evidence)
        return Relation("related", "related — review: " + "; ".join(evidence or ("close in words",)),
                        rule.attribute, rule.old_value, rule.new_value, rule.subject, "model",
                        confidence=1 - p["compatible"], evidence=evidence, leaning=leaning)
    evidence = _evidence(m, x, top, older, newer)
    if top == rule.kind:
        strong = top in STRONG_BASES and rule.basis in STRONG_BASES[top] and p[top] >= m.strong \
            and _purpose(older) == _purpose(newer)
        return replace(rule, strong=strong, confidence=p[top], evidence=evidence)
    reason = f"{_KIND_WORDS[top]}: " + "; ".join(evidence or ("the model's reading",))
    return Relation(top, reason, rule.attribute, rule.old_value, rule.new_value, rule.subject, "model",
                    confidence=p[top], evidence=evidence)


_KIND_WORDS = {"duplicate": "likely the same fact", "correction": "likely a newer value",
               "contradiction": "likely cannot both hold", "event_vs_state": "likely a one-off event against a habit"}


def _evidence(m, x: dict[str, float], label: str, older: str, newer: str) -> tuple[str, ...]:
    """Up to three phrases for the features that favour ``label`` over ``compatible`` most."""
    out: list[str] = []
    for name, _ in m.contributions(x, label):
        phrase = _phrase(name, older, newer)
        if phrase and phrase not in out:
            out.append(phrase)
        if len(out) == 3:
            break
    return tuple(out)


#: Cue words the evidence does not quote: pronouns, copulas, articles (folded).
_QUIET_CUES = frozenset({"i", "my", "me", "we", "our", "he", "she", "his", "her", "they", "their", "you", "your",
                         "is", "are", "am", "was", "were", "be", "been", "has", "have", "had", "do", "did", "does",
                         "la", "co", "o", "cua", "toi", "minh", "em", "anh", "ban", "ho", "to", "from", "this",
                         "one", "all", "any", "some", "get", "got"})
_FLAG_WORDS = {"negated": "a negation", "ended": "an ended state", "change": "a word of change", "fix": "a fix",
               "hedged": "a hedge", "only": "'only'", "ever": "'never/ever'", "past": "a past state",
               "plan": "a plan or wish", "event": "a one-off event", "habit": "a habit", "long_ago": "'for long'",
               "antonym": "an opposite word", "became": "'became'"}


def _phrase(name: str, older: str, newer: str) -> str | None:
    """The owner's words for one feature (``pair_features``); ``None`` for one that says nothing alone."""
    if name.startswith(("cue_b_", "cue_a_")):
        if name[6:] in _QUIET_CUES:
            return None  # a pronoun or a copula weighs in the model but explains nothing to the owner
        return f"the {'newer' if name[4] == 'b' else 'older'} says '{name[6:]}'"
    if name.startswith(("a_", "b_", "xor_")):
        side, flag = name.split("_", 1)
        words = _FLAG_WORDS.get(flag)
        if words is None:
            return None
        return {"a": f"the older has {words}", "b": f"the newer has {words}",
                "xor": f"{words} on one side only"}[side]
    if name.startswith("rule_") or name.startswith("basis_"):
        r = _relate(older, newer, None, DUPLICATE_OVERLAP)
        return r.reason if r.kind != "compatible" else None
    return _DENSE_WORDS.get(name)


_DENSE_WORDS = {
    "tok_jaccard": "words in common", "content_jaccard": "content words in common",
    "content_dice": "content words in common", "content_contain": "one says what the other says",
    "concept_dice": "the same concepts", "concept_contain": "the same concepts", "gram3_jaccard": "similar spelling",
    "gram4_jaccard": "similar spelling", "gram4_contain": "similar spelling", "numbers_both": "numbers on both sides",
    "numbers_shared": "the same number", "numbers_differ": "different numbers", "names_shared": "the same name",
    "names_differ": "different names", "names_new": "a new name", "quantities_agree": "the same date or amount",
    "quantities_differ": "another date or amount", "subject_same": "the same subject",
    "both_owner": "both about the owner", "frames_shared": "the same attribute",
    "frames_single": "a one-valued attribute", "frames_same_value": "the same value",
    "frames_other_value": "another value", "frames_polarity_differ": "opposite polarity",
    "attributes_shared": "the same kind of fact", "len_ratio": "similar length",
}


#: The reader's generic frames ("is", "has", "does", "likes"): nearly every text has one, so sharing
#: one says nothing about the topic.
_GENERIC_FRAMES = frozenset({"is", "have", "do", "of", "switch", "like", "prefer"})


_PURPOSE = re.compile(r"\bfor\s+((?:[^\W\d_]+\s+){0,3}?[^\W\d_]+)\s*(?::|\b(?:is|are|was|were|la)\b)")


def _purpose(text: str) -> str | None:
    """What a statement's attribute is for, when it says so before its value ("favourite colour
    *for the kitchen walls* is white", "Preferred editor *for notes*: …"), folded; ``None`` when it
    does not. Two texts whose purposes differ state two facts: never a default action."""
    from bestie_tui.text import words as textmod

    found = _PURPOSE.search(textmod.fold(text).lower())
    return " ".join(w for w in found.group(1).split() if w not in ("the", "my", "our", "a", "an")) if found else None


def _numbered_things(rule: Relation, older: str, newer: str) -> bool:
    """The rules found two different things told apart by a number ("item 1" / "item 40", "room 12"
    / "room 14"): a list of things, not one fact told twice or changed."""
    if rule.basis != "subject":
        return False
    a, b = read(older).subject, read(newer).subject
    return a.kind == b.kind == "thing" and a.words != b.words and any(
        w.isdigit() for w in a.words ^ b.words)


def close(older: str, newer: str) -> bool:
    """``pair_features.close`` with the frames worked out: the two share a frame of one attribute and
    key that is not a generic one ("meeting" and "deploy" schedules are two topics), or one named
    person and one attribute, generic or not."""
    from bestie_tui.facts.pair_features import close as close_texts

    a, b = read(older), read(newer)
    same_frame = any(fa.attribute not in _GENERIC_FRAMES for fa, _ in _pairs(a, b)) or bool(
        # one named person and one kind of statement about them ("Ngân has two children" / "Ngân
        # has no children"); the name alone is not a topic ("Linh is an engineer" / "Linh hates durian")
        a.subject.name and a.subject.name == b.subject.name
        and {f.attribute for f in a.facts} & {f.attribute for f in b.facts})
    return close_texts(older, newer, same_frame)


def pair_features(older: str, newer: str) -> dict[str, float]:
    """``facts.pair_features.features`` of the pair, with the rule verdict and frames it needs."""
    from bestie_tui.facts.pair_features import features

    return features(older, newer, rule_relation(older, newer), pair_frames(read(older), read(newer)))


def clear_cache() -> None:
    """Forget cached verdicts (after ``facts.model.use``)."""
    _judged.cache_clear()


@lru_cache(maxsize=65536)
def _relate(older: str, newer: str, similarity: float | None = None, threshold: float = DUPLICATE_OVERLAP
            ) -> Relation:
    a, b = read(older), read(newer)
    if a.norm == b.norm:
        return Relation("duplicate", "the same text", basis="text")
    subject = same_subject(a.subject, b.subject, a.content, b.content)
    who = _label(b) if b.subject.kind != "owner" or a.subject.kind == "owner" else _label(a)
    best: Relation | None = None
    for fa, fb in _pairs(a, b):
        if subject == "different" and fa.attribute != "role":
            continue
        if True:
            r = _compare(a, b, fa, fb, "owner" if fa.attribute == "role" else who)
            if best is None or _RANK[r.kind] < _RANK[best.kind]:
                best = r
    if best is not None and best.kind != "compatible":
        return best
    found = _excluded(a, b)
    if found is not None:
        return found
    if subject == "different":
        return Relation("compatible", f"different subjects: {a.subject.label()} / {b.subject.label()}",
                        basis="subject")
    if best is not None:
        return best
    if b.event and not a.event and not b.change and (a.facts and b.facts) and subject == "same" \
            and not (a.plan or b.plan or a.past) and (a.negated or a.only or any(
                f.attribute in ("prefer", "reply language", "fear") or f.polarity < 0 for f in a.facts)):
        shared = _categories(a) & _categories(b)
        if shared:
            if a.ever and a.negated:
                return Relation("contradiction", f"same subject: {who}; never {', '.join(sorted(shared))} / "
                                "it happened", subject=who, basis="negation")
            return Relation("event_vs_state", f"same subject: {who}; a one-off event about "
                            f"{', '.join(sorted(shared))} against “{older}”", subject=who, basis="event")
    return _by_words(a, b, who, similarity, threshold)


def rule_relation(older: str, newer: str) -> Relation:
    """The verdict of the reader's rules alone (steps 1–5 of the module docstring), before the model
    (``relate`` weighs it with the other evidence). Cached; never raises."""
    return _relate(older, newer, None, DUPLICATE_OVERLAP)


class PairFrames(NamedTuple):
    """What the facts of two readings have in common (``pair_frames``): a fact pair of the same
    attribute and key (``shared``), one of them single-valued (``single``), equal values
    (``same_value``), another value (``other_value``), opposite polarity (``polarity_differ``); and
    whether any attribute at all is named by both (``attributes_shared``)."""

    shared: bool
    single: bool
    same_value: bool
    other_value: bool
    polarity_differ: bool
    attributes_shared: bool


def pair_frames(a: Reading, b: Reading) -> PairFrames:
    """The ``PairFrames`` of two readings (``a`` the older)."""
    pairs = _pairs(a, b)
    same = [same_value(fa, fb, a.quantities, b.quantities) for fa, fb in pairs]
    return PairFrames(bool(pairs), any(fa.spec.single for fa, _ in pairs), any(same),
                      any(not x for x in same), any(fa.polarity != fb.polarity for fa, fb in pairs),
                      bool({f.attribute for f in a.facts} & {f.attribute for f in b.facts}))


def _label(r: Reading) -> str:
    """The subject of ``r`` as the owner wrote it: a thing's words in the text's order ("Friend number
    334 Vinh", not the sorted stems "334 friend number vinh"); a person or the owner as
    ``Subject.label``."""
    if r.subject.kind != "thing" or not r.subject.words:
        return r.subject.label()
    written: list[str] = []
    for concept, words in r.words:
        if concept in r.subject.words and words not in written:
            written.append(words)
    return " ".join(written) if written else r.subject.label()


def categories_named(r: Reading) -> set[str]:
    """The categories (not the words themselves) of what a text names: "champagne" → alcohol."""
    return _categories(r)


class Keys(NamedTuple):
    """What ``may_disagree`` compares, for one text (``disagreement_keys``).

    ``exclusive``: the text may disagree with any other ("only X"); ``keys``: tagged strings two
    texts must share (``a:`` an attribute key of a fact, ``c:`` a content word of a text the reader
    cannot frame, ``g:`` a category); ``excludes``: what the text's states and denials rule out
    ("vegetarian" → meat, "no pets" → pet); ``mentions``: what it names or implies that a state or a
    denial of another text could rule out. Two texts may disagree exactly when either is exclusive,
    their ``keys`` meet, or one's ``excludes`` meet the other's ``mentions``."""

    exclusive: bool
    keys: frozenset[str]
    excludes: frozenset[str]
    mentions: frozenset[str]


@lru_cache(maxsize=262144)
def disagreement_keys(text: str) -> Keys:
    """The ``Keys`` of ``text`` (see ``Keys`` and ``may_disagree``), so that a caller relating one text
    to many (a context pack's conflict check) looks its partners up by key instead of testing every
    pair. Cached by text."""
    r = read(text)
    keys = {f"a:{k}" for f in r.facts for k in _fact_keys(f)}
    # a value implied by a mention ("my wife" → married) meets the facts of that attribute and value
    for attribute, value, _ in r.implied:
        keys |= {f"a:{attribute}", f"a:{attribute}={value}", f"a:like={value}"}
    if not r.readable:
        keys |= {f"c:{w}" for w in r.content}  # words decide only between two unframed texts (``_by_words``)
    keys |= {f"g:{c}" for c in _categories(r)}
    excludes = {w for state in r.states for w in EXCLUDES[state]} | _negative_categories(r)
    role = r.subject.role
    mentions = set(r.mentions) | _positive_mentions(r) | _members_named(r) | (
        {role} | categories_of(role) if role else set())
    # "only X" disagrees with any other value of its attribute: it meets every text
    return Keys(r.only, frozenset(keys), frozenset(excludes), frozenset(mentions))


#: Verbs a decision is made with rather than about ("use", "go with"): no subject of their own.
_LIGHT_VERBS = frozenset({"use", "go", "make", "have", "get", "do", "take", "keep", "tri", "try", "start", "stop",
                          "switch", "move", "put", "set", "give", "let", "need", "want", "meet", "meeting"})


#: Attributes ``same_value`` may call equal with one value missing, or compared across subjects.
_ANY_VALUE = frozenset({"allergy", "children", "marital", "siblings", "role"})


def _by_value(f: Fact) -> bool:
    """True when another fact of the same attribute can disagree with ``f`` only on a value they have
    in common ("likes dogs" / "doesn't like dogs"; never "likes cats"): a many-valued attribute whose
    values are words, not measures ("age:41"), and that is compared only with a value on both sides.
    False: any other value of the attribute may disagree ("lives in Hanoi" / "lives in Hue")."""
    return not (f.spec.single or f.attribute in _ANY_VALUE
                or any(":" in v or v.replace(".", "").isdigit() for v in f.value | f.old_value))


def _fact_keys(f: Fact) -> list[str]:
    """The attribute keys of one fact: two facts can give ``_compare`` a correction or a contradiction
    only when a key meets.

    * a single-valued attribute ("lives in", "favourite"), one whose values are measured ("age:41")
      or may be equal with one side missing (``_ANY_VALUE``): the attribute itself, since two
      different values already disagree;
    * a many-valued one ("likes", "does", "has"): the attribute with each value word (and each
      value it changed "from"), since two of its facts disagree only on a value in common (a negation
      of it, the whole denying a part, a change from it), or through "only", which makes the text
      exclusive instead. The liking attributes also meet each other on a value (``_pairs``)."""
    values = f.value | f.old_value
    keys = []
    if not _by_value(f):
        keys.append(f.attribute)
    elif f.attribute not in _LIKING:
        keys += [f"{f.attribute}={v}" for v in values] or [f"{f.attribute}="]
    if f.attribute in _LIKING:
        keys += [f"like={v}" for v in values] or ["like="]
    return keys


def may_disagree(older: str, newer: str) -> bool:
    """False only when ``relate(older, newer)`` cannot be a correction or a contradiction: neither text
    is exclusive, their keys do not meet and neither rules out what the other names (``Keys``). A
    cheap necessary condition, read from the two cached readings, so that a caller relating many
    pairs skips the unrelated ones; keep it in step with ``_relate`` (step 2 ``_excluded``, step 4
    ``_compare`` through ``_pairs``, the event step's categories and step 5 ``_by_words``)."""
    a, b = disagreement_keys(older), disagreement_keys(newer)
    return a.exclusive or b.exclusive or not a.keys.isdisjoint(b.keys) \
        or not a.excludes.isdisjoint(b.mentions) or not b.excludes.isdisjoint(a.mentions)


def _categories(r: Reading) -> set[str]:
    """The categories (not the words themselves) of what a text names."""
    out: set[str] = set()
    for c in r.content:
        out |= categories_of(c) - {c}
    return out


_RANK = {"correction": 0, "contradiction": 1, "event_vs_state": 2, "duplicate": 3, "compatible": 4}


#: Attributes that state one feeling at different strengths: a favourite is preferred, a
#: preference is liked. The same value under two of them is one statement ("favourite colour is
#: blue" / "likes blue"); different values are not compared.
_LIKING = frozenset({"like", "prefer", "favourite"})


def _pairs(a: Reading, b: Reading) -> list[tuple[Fact, Fact]]:
    out = []
    for fa in a.facts:
        for fb in b.facts:
            if fa.attribute == fb.attribute and _same_key(fa, fb):
                out.append((fa, fb))
            elif fa.attribute in _LIKING and fb.attribute in _LIKING and fa.value == fb.value and fa.value \
                    and fa.polarity == fb.polarity:
                out.append((fa, fb))
    return out


def _same_key(fa: Fact, fb: Fact) -> bool:
    if not fa.key or not fb.key or fa.key == fb.key:
        return True
    ka, kb = set(fa.key.split()), set(fb.key.split())
    return ka <= kb or kb <= ka or len(ka & kb) >= 2


def same_value(fa: Fact, fb: Fact, qa: frozenset[dates.Quantity], qb: frozenset[dates.Quantity]) -> bool:
    """Equal values: the same quantities where both name one, and the words of one among the
    other's (a name must match exactly: "anh Minh" is not "Minh")."""
    va, vb = set(fa.value), set(fb.value)
    numbers_a = {x for x in va if x.replace(".", "").isdigit()}
    numbers_b = {x for x in vb if x.replace(".", "").isdigit()}
    if numbers_a and numbers_b and not (numbers_a & numbers_b) and not (dates.agree(qa, qb) and qa and qb):
        return False
    if fa.attribute in ("children", "pets", "siblings"):
        ca = {q.value for q in qa if q.kind in ("number", "count")}
        cb = {q.value for q in qb if q.kind in ("number", "count")}
        if ca and cb and not ca & cb:
            return False  # "one child" is not "3 kids"
    if not va or not vb:
        return not va and not vb or fa.attribute in ("allergy", "children", "marital", "siblings")
    if fa.attribute in ("name",):
        return _plain(va) - _NAMING == _plain(vb) - _NAMING  # "called Ms Thao" is "Ms Thao"
    if fa.attribute in _SET_VALUED:
        return va == vb
    if any(x.startswith(("date:", "time:", "year:", "age:", "grade:", "mass:", "length:", "floor:", "weekday:",
                         "daypart:", "month:")) for x in va | vb):
        return _quantities_same(va, vb)
    if fa.attribute in _ONE_THING and (va <= vb or vb <= va):
        return True  # "Ban Mai primary" is "Ban Mai Primary School"; "League" is "League of Legends"
    union = va | vb
    return len(va & vb) / len(union) >= 0.8


#: Attributes whose value names one thing, so a shorter name of it is the same value. Elsewhere a
#: word more is another value: "winter" / "winter weddings", "pizza" / "pizza with friends".
_ONE_THING = frozenset({"residence", "location", "hometown", "employer", "school", "tool", "title", "name", "role",
                        "manager", "lead", "favourite", "of", "work location", "commute", "birthday", "allergy",
                        "decision", "approval", "permission", "pricing", "opening"})


#: Attributes a person can hold two values of at once, or at two scales (a borough and its city; two
#: jobs; a thing's several traits): another value is a correction only when the newer says it changed.
_SAID_CHANGES = frozenset({"residence", "location", "hometown", "employer", "title", "school", "of", "prefer",
                           "work location", "diet"})
#: Word beginnings inside attribute cues that say a value changed ("promoted to", "transferred to").
_CHANGE_STEMS = ("promot", "moved", "relocat", "transferr", "hired", "joined", "demot")
#: Words that say a name is given, not part of it.
_NAMING = frozenset({"call", "name", "named"})
#: Generic attributes whose extra words qualify the value rather than name a part of it: "not reliable
#: in other things" does not deny "reliable in my job", nor "no good clothing" "dingy clothing".
_QUALIFIED = frozenset({"is", "have", "do"})
#: Attributes whose value is a set of items: equal only when the sets are ("French and English" is
#: more than "English").
_SET_VALUED = frozenset({"languages", "reply language", "written language", "pets", "children"})


def _plain(v: set[str]) -> set[str]:
    return {x for x in v if not any(x != y and x.startswith(y) and len(y) > 2 for y in v)}


def _quantities_same(va: set[str], vb: set[str]) -> bool:
    qa = {x for x in va if ":" in x}
    qb = {x for x in vb if ":" in x}
    kinds = {x.split(":")[0] for x in qa} & {x.split(":")[0] for x in qb}
    if not kinds:
        return bool(qa & qb)
    for kind in kinds:
        xa = {x for x in qa if x.startswith(kind + ":")}
        xb = {x for x in qb if x.startswith(kind + ":")}
        if kind in ("mass", "length"):
            fa_ = [float(x.split(":")[1]) for x in xa]
            fb_ = [float(x.split(":")[1]) for x in xb]
            if not any(abs(p - q) <= dates.TOLERANCE * max(p, q) for p in fa_ for q in fb_):
                return False
        elif xa != xb:
            return False
    return True


def _scopes_differ(a: Reading, b: Reading, timed: bool = False) -> bool:
    """Both name days (or parts of the day) and no day is in both: "home on Mondays" / "office on
    Tuesdays". For a ``timed`` attribute (a bedtime) the part of the day is its value, not a scope."""
    for kind in ("weekday",) if timed else ("weekday", "daypart"):
        da = {q.value for q in a.quantities if q.kind == kind}
        db = {q.value for q in b.quantities if q.kind == kind}
        if da and db and not (da & db):
            return True
    return False


def _show(fact: Fact) -> str:
    return fact.value_text or ", ".join(sorted(fact.value))


def _compare(a: Reading, b: Reading, fa: Fact, fb: Fact, who: str) -> Relation:
    spec = fa.spec
    attribute = fa.label()
    old, new = _show(fa), _show(fb)

    def rel(kind: str, why: str, basis: str) -> Relation:
        return Relation(kind, f"same subject: {who}; attribute: {attribute}; {why}", fa.label(), old, new, who, basis)

    if a.plan != b.plan and fa.attribute not in _PREFERENCES:
        return rel("compatible", "a plan or wish beside a statement", "plan")
    if (a.past != b.past) and not (a.ever and fa.polarity < 0 or b.ever and fb.polarity < 0):
        return rel("compatible", "a past state beside a present one", "past")
    if fa.attribute == "favourite" and (_ranked(a) or _ranked(b)):
        return rel("compatible", "one of several favourites, not the favourite", "many")  # "my second favourite"
    if fa.attribute == "name" and _called(a) != _called(b) and not (b.change or b.fix):
        return rel("compatible", "a name beside what one is called", "scope")  # "My name is William" / "call me Bill"
    same = same_value(fa, fb, a.quantities, b.quantities)
    if same:
        if fa.polarity == fb.polarity:
            if fa.attribute != "schedule" and _scopes_differ(a, b, fa.attribute in _TIMED):
                return rel("compatible", "different days or times", "scope")
            if fa.attribute in STATUS and set(fa.value) < set(fb.value) and _says_change(a, b):
                return rel("correction", f"{old} → {new}", "change")  # "Analyst" → "promoted to Senior Analyst"
            return rel("duplicate", f"{old} = {new}" if old != new else f"both: {new}", "same")
        if bool(a.purpose) != bool(b.purpose) and not (b.ended or b.fix):
            return rel("compatible", "one side is about a particular use or place", "scope")
        if fb.polarity < 0 and b.ended:
            return rel("correction", f"{old} → ended", "ended")
        if b.fix:
            return rel("correction", f"{old} → not so (an explicit fix)", "fix")
        if fb.polarity > 0 and b.change and not b.long_ago and (a.ended or spec.mutable and fa.attribute in STATUS
                                                                or b.became):
            return rel("correction", f"not {old} → {new}", "change")
        if b.event and not a.event and not a.ever and fb.polarity > 0:
            return rel("event_vs_state", f"a one-off event against “{a.text}”", "event")
        if a.event != b.event and (fa.polarity < 0 if a.event else fb.polarity < 0) and not (a.ever or b.ever):
            # "not playing football this week" beside "have played football since I was young"
            return rel("compatible", "a one-off denial beside a lasting state", "event")
        return rel("contradiction", f"{old} / not {old}" if fb.polarity < 0 else f"not {old} / {new}",
                   "antonym" if a.antonym != b.antonym else "negation")
    # different values
    if fa.polarity != fb.polarity:
        negative, positive = (fa, fb) if fa.polarity < 0 else (fb, fa)
        if negative.value and set(negative.value) < set(positive.value) and fa.attribute not in _QUALIFIED \
                and _surface(negative) <= _surface(positive):  # "nature" is not in "natural remedies"
            # a denial of the whole covers its part: "hates durian" / "loves durian smoothies" (but "no
            # carrot cake" does not deny "likes cake")
            if b.event and not a.event and fb.polarity > 0 and not a.ever:
                return rel("event_vs_state", f"a one-off event against “{a.text}”", "event")
            return rel("contradiction", f"{old} / {new}", "antonym" if a.antonym != b.antonym else "negation")
    if fb.old_value and fa.polarity > 0 and fb.polarity > 0 and same_value(
            fa, fb._replace(value=fb.old_value), a.quantities, b.quantities):
        return rel("correction", f"{old} → {new}", "change")  # "moved from Hanoi to …", "moving away from …"
    if fa.polarity < 0 or fb.polarity < 0:
        if fa.polarity < 0 and fb.polarity < 0 or not (a.only or b.only):
            return rel("compatible", "different values, one or both denied", "denied")
    if (a.only or b.only) and fa.polarity > 0 and fb.polarity > 0:
        only, other = (fa, fb) if a.only else (fb, fa)
        counted = {v for v in only.value if v.isdigit()}
        if counted and not ((set(only.value) - counted) & set(other.value)):
            return rel("compatible", f"only {_show(only)} counts those, not {_show(other)}", "many")
        if fa.attribute == "children" and not _counts_differ(a, b):
            return rel("compatible", f"{_show(other)} can be the only one", "many")  # "only one child" / "a daughter"
        if set(other.value) <= set(only.value) and not (fa.attribute == "children" and _counts_differ(a, b)):
            return rel("compatible", f"{_show(other)} is within only {_show(only)}", "many")
        if fa.attribute in ("do", "have", "is", "like") and not (_value_categories(fa) & _value_categories(fb)):
            return rel("compatible", f"{old} and {new} are different kinds of thing", "many")
        if b.event and not a.event:
            return rel("event_vs_state", f"a one-off event against “{a.text}”", "event")
        return rel("contradiction", f"only {old} / {new}" if a.only else f"{old} / only {new}", "value")
    if not spec.single:
        return rel("compatible", f"{old} and {new} can both hold", "many")
    if fa.attribute == "decision" and not {w for w in (set(fa.value) & set(fb.value)) | (a.content & b.content)
                                           if w not in _LIGHT_VERBS and not w.startswith("@")}:
        # one decision replaces another about the same thing ("launch in March" / "launch in May";
        # "use React for the frontend" / "use Vue for the frontend"), not one about something else
        # ("use PostgreSQL" / "deploy on Tuesdays"; a verb in common is no thing in common)
        return rel("compatible", f"{old} and {new} decide different things", "many")
    if fa.attribute in ("residence", "hometown") and not (_named(fa) and _named(fb)):
        return rel("compatible", f"{old} and {new} can both hold (not two named places)", "many")
    if b.event and not a.event and fa.attribute not in STATUS and not b.change:
        return rel("event_vs_state", f"a one-off event against “{a.text}”", "event")
    if a.purpose and b.purpose and not (a.purpose & b.purpose):
        return rel("compatible", f"different uses: {', '.join(sorted(a.purpose))} / {', '.join(sorted(b.purpose))}",
                   "scope")
    if fa.attribute != "schedule" and _scopes_differ(a, b, fa.attribute in _TIMED):
        return rel("compatible", "different days or times", "scope")
    if b.event and not a.event and fa.attribute not in STATUS and not b.change:
        return rel("event_vs_state", f"a one-off event against “{a.text}”", "event")
    if fa.attribute == "tool" and set(fa.value) & set(fb.value) and not _counts_differ(a, b) \
            and not dates.differ(a.quantities, b.quantities) and not _says_change(a, b):
        return rel("compatible", f"{old} and {new}: one make, told two ways", "many")  # "Honda Civic" / "Honda car"
    if fa.attribute == "marital" and set(fb.value) == {"engaged"} and set(fa.value) & {"married", "divorced"}:
        return rel("compatible", "an engagement comes before a marriage", "past")
    if not spec.mutable:
        if b.fix:
            return rel("correction", f"{old} → {new} (an explicit fix)", "fix")
        return rel("contradiction", f"{old} / {new}: a fact that does not change", "value")
    if spec.grows and _smaller(fb, fa):
        return rel("contradiction", f"{old} / {new}: it only grows", "value")
    if b.long_ago:
        return rel("contradiction", f"{old} / {new}: the newer says it has long been so", "value")
    if fa.attribute in _SAID_CHANGES and not _says_change(a, b):
        # "I live in Queens" / "I live in New York", "I work at a shelter" / "I work at the library":
        # without a word of change both can hold (places nest, people hold two jobs)
        return rel("compatible", f"{old} and {new} can both hold (no word of a change)", "many")
    return rel("correction", f"{old} → {new}", "value")


def _surface(f: Fact) -> set[str]:
    """The words of a value as written, lower-cased, a plural "s" dropped (stems join "films" and
    "filming", "nature" and "natural"; this keeps them apart)."""
    return {w.lower().rstrip("s") for w in f.value_text.split() if w.isalpha()}


def _says_change(a: Reading, b: Reading) -> bool:
    """The newer text says something changed (a change or fix word, "became", an end, a dated
    event, "promoted to"), or the older one says it ended."""
    return (b.change or b.fix or b.became or b.ended or b.event or a.ended
            or any(w.startswith(_CHANGE_STEMS) for w in b.text.lower().split()))


def _ranked(r: Reading) -> bool:
    """"My second favourite colour", "One of my favourite foods": not the one favourite."""
    low = " " + " ".join(r.text.lower().split()) + " "
    return any(p in low for p in (" second ", " third ", " one of my ", " another ", " among my "))


def _called(r: Reading) -> bool:
    """The text says what its subject is called ("call me Bill", "goes by Steph"), not a name."""
    low = " " + " ".join(r.text.lower().split()) + " "
    return any(p in low for p in (" call me ", " calls me ", " called me ", " go by ", " goes by ", " nickname "))


def _counts_differ(a: Reading, b: Reading) -> bool:
    """Both texts count (a number or a number word) and no count is in both: "one child" / "3 kids"."""
    ca = {q.value for q in a.quantities if q.kind in ("number", "count")}
    cb = {q.value for q in b.quantities if q.kind in ("number", "count")}
    return bool(ca and cb and not ca & cb)


def _named(f: Fact) -> bool:
    """The value as written has a capitalised word: a named place ("Da Nang"), not "a farm"."""
    return any(w[:1].isupper() for w in f.value_text.split())


def _value_categories(f: Fact) -> set[str]:
    out: set[str] = set()
    for v in f.value:
        out |= categories_of(v) - {v}
    return out


def _smaller(fb: Fact, fa: Fact) -> bool:
    def number(f: Fact) -> float | None:
        # the leading integer of each value, the smallest: "grade:4a3" is 4, not 43
        found = [float(m.group()) for x in f.value if (m := re.match(r"\d+", x.split(":")[-1]))]
        return min(found) if found else None
    na, nb = number(fa), number(fb)
    return na is not None and nb is not None and nb < na


def _negative_categories(r: Reading) -> set[str]:
    """The categories a text denies or avoids ("I never touch alcohol", "không ăn đồ chiên", "afraid
    of dogs"), as far as the knowledge tables know them; with "never ever", anything it names."""
    out: set[str] = set()
    for f in r.facts:
        if f.polarity < 0 or f.attribute == "fear":
            out |= {v for v in f.value if v in KNOWN_CATEGORIES or r.ever and len(v) > 3}
    return out


def _positive_mentions(r: Reading) -> set[str]:
    out: set[str] = set(r.mentions)
    for f in r.facts:
        if f.polarity > 0:
            for v in f.value:
                out |= categories_of(v)
    return out


#: States about what one eats: only what the text says the subject eats, drinks or likes clashes.
_DIETS = frozenset({"vegetarian", "vegan", "pescatarian", "coeliac", "lactose intolerance", "sugar free"})


def _consumed(r: Reading) -> set[str]:
    """Categories of what a text says its subject eats, drinks, likes or has (positively)."""
    out: set[str] = set()
    low = " ".join(r.text.lower().split())
    for f in r.facts:
        if f.polarity > 0 and (f.attribute in ("like", "prefer", "favourite") or f.attribute == "do"
                               and f.key in ("consume", "")):
            for v in f.value:
                if f"to {v}" in low and f.attribute != "do":
                    continue  # "I like to fish": the sport, not the food
                out |= categories_of(v)
    return out


def _written(r: Reading, categories: set[str]) -> str:
    """The words of ``r`` (as written) whose concept is in, or belongs to, ``categories``."""
    found = sorted({shown for key, shown in r.words if categories & categories_of(key)})
    return ", ".join(found)


def _members_named(r: Reading) -> set[str]:
    """The categories of what a text names positively, without the names themselves: "champagne"
    gives alcohol, "Tokyo" Japan and abroad; a denial of "vegan" meets a "vegan" in the facts, not here."""
    out: set[str] = set()
    names: set[str] = set(r.content)
    for f in r.facts:
        if f.polarity > 0:
            names |= f.value
    for c in names:
        out |= categories_of(c) - {c}
    if "abroad" in r.mentions and "abroad" not in r.content:
        out.add("abroad")
    return out & r.mentions if r.mentions else out


def _excluded(a: Reading, b: Reading) -> Relation | None:
    """Step 2 of the module docstring, in both directions."""
    for x, y, newer_is_y in ((a, b, True), (b, a, False)):
        if y.plan or x.plan or y.past and not x.ever or x.past and not x.ever:
            continue  # a past state excludes nothing now ("was a vegetarian for six years" / "likes bacon")
        family = y.subject.kind == "person" and y.subject.of is None and y.subject.role is not None
        same = same_subject(x.subject, y.subject, x.content, y.content) == "same"
        if x.subject.kind != "owner" and not same:
            continue
        for state in sorted(x.states):
            clash = EXCLUDES[state] & (_consumed(y) if state in _DIETS else (
                _positive_mentions(y) | ({y.subject.role} if family else set())
                | {c for r in ({y.subject.role} if family else set()) if r for c in categories_of(r)}))
            if clash and (same or family and state in ("only child",)):
                return _clash(x, y, newer_is_y, state, ", ".join(sorted(clash)))
        for attribute, value, polarity in y.implied:
            for f in x.facts:
                if f.attribute == attribute and value in f.value and f.polarity != polarity:
                    return _clash(x, y, newer_is_y, f"{attribute}: not {value}", value)
        denied = _negative_categories(x)
        if denied and family and x.subject.kind == "owner":
            relatives = categories_of(y.subject.role or "")
            # only a denial of having one ("no wife", "not married"), not of liking one ("don't like my wife")
            had = {v for f in x.facts if f.polarity < 0 and f.attribute not in ("like", "prefer", "fear")
                   for v in f.value}
            if denied & relatives & had:
                return _clash(x, y, newer_is_y, "not " + ", ".join(sorted(denied)), y.subject.role or "")
        if not same or not denied:
            continue
        # A denial is broken only by what happens or is done: an occurrence against "never ever", a
        # one-off event against a habit, a consuming habit against "I don't eat/drink …". Liking
        # dogs does not break "I have no pets"; living on the east coast not "never been west".
        occurrence = y.event or y.past or _occurs(y)
        consuming = any(f.key == "consume" and f.polarity < 0 for f in x.facts) and y.habit and _does(y)
        if not (x.ever and occurrence or y.event and _does(y) or consuming):
            continue
        named = _members_named(y)
        hits = {d for d in denied if d in named or d in y.mentions} - {"food", "thing"}
        if hits:
            return _clash(x, y, newer_is_y, "not " + ", ".join(sorted(denied)), ", ".join(sorted(hits)),
                          ever=x.ever)
    return None


#: Verbs that report that something happened or was done.
_OCCURRENCE = frozenset({"visit", "went", "go", "been", "travel", "fly", "flew", "flight", "had", "have", "ate",
                         "drank", "did", "took", "tri", "sang", "di", "bay", "tung", "ghe"})


def _occurs(r: Reading) -> bool:
    """The text reports an occurrence: a positive fact with a verb of doing or going."""
    return any(f.polarity > 0 and (f.attribute == "do" and f.key in _OCCURRENCE or f.attribute == "travel")
               for f in r.facts)


def _does(r: Reading) -> bool:
    """The text says its subject does or did something, not that it likes, fears or knows something."""
    return any(f.polarity > 0 and f.attribute not in _ATTITUDES for f in r.facts)


#: Attributes that state a feeling, a relation or an identity rather than a deed.
_ATTITUDES = frozenset({"like", "prefer", "favourite", "fear", "is", "named", "name", "relation", "role", "marital",
                        "languages", "learning", "allergy", "condition", "diet", "of"})


def _clash(x: Reading, y: Reading, newer_is_y: bool, state: str, what: str, ever: bool = False) -> Relation:
    older, newer = (x, y) if newer_is_y else (y, x)
    shown = _written(y, set(what.split(", "))) or what
    why = f"{state} excludes {shown}"
    if newer.event and not newer.change and newer is y and not ever:
        return Relation("event_vs_state", f"an event ({shown}) against the lasting state {state!r}: an event does "
                        "not replace a state; review it", None, state, shown, basis="event")
    if newer.ended or newer.fix or (newer.change and newer is y and not newer.long_ago and not ever):
        return Relation("correction", f"{why}; the newer says it changed", None, state, what, basis="change")
    return Relation("contradiction", why, None, state, what, basis="exclusion")


def _by_words(a: Reading, b: Reading, who: str, similarity: float | None, threshold: float) -> Relation:
    """Step 5: content-word overlap (Dice, or the caller's ``similarity``) and polarity."""
    ca, cb = set(a.content), set(b.content)
    if not ca or not cb:
        return Relation("compatible", "nothing in common the reader can compare", basis="none")
    dice = 2 * len(ca & cb) / (len(ca) + len(cb)) if similarity is None else similarity
    what = "word overlap" if similarity is None else "similarity"
    if a.plan != b.plan or a.past != b.past and not (a.ever and a.negated or b.ever and b.negated):
        return Relation("compatible", "a plan, a wish or a past state beside a statement", basis="plan")
    if dice >= OPPOSITE_OVERLAP and a.negated != b.negated and ca & cb and not (a.readable or b.readable) \
            and not (a.hedged or b.hedged):  # "not sure what meditating is like" denies nothing
        if b.ended and b.negated:
            return Relation("correction", f"the same words ({what} {dice:.2f}); the newer says it ended",
                            subject=who, basis="ended")
        if b.event and not a.event:
            return Relation("event_vs_state", f"the same words ({what} {dice:.2f}); a one-off event",
                            subject=who, basis="event")
        return Relation("contradiction", f"the same words ({what} {dice:.2f}), one negated", subject=who,
                        basis="negation")
    if dice >= threshold and a.negated == b.negated and not dates.differ(a.quantities, b.quantities) \
            and not _scopes_differ(a, b) and not (a.readable or b.readable):
        return Relation("duplicate", f"the same words ({what} {dice:.2f})", subject=who, basis="words")
    return Relation("compatible", f"different facts ({what} {dice:.2f})" + (
        "" if a.readable or b.readable else "; " + (a.note or b.note or "")), basis="words")


__all__ = ["Relation", "relate", "KINDS", "RELATED", "rule_relation", "pair_frames", "PairFrames", "clear_cache",
           "STRONG_BASES", "same_value", "categories_named", "may_disagree",
           "disagreement_keys", "Keys"]


def _listen() -> None:
    from bestie_tui.facts import model

    model.on_change(clear_cache)


_listen()
