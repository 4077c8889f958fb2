"""The gate's shortcuts decide as the full rules do (issue 31, item 1): a text is passed over only
when it holds none of the words every venting shape needs, and the token rules run only when their
anchors are in the text."""

from __future__ import annotations

import re

from bestie_tui.store.gate import content
from bestie_tui.store.gate.fold import fold, required_literals
from bestie_tui.store.gate.secrets import detect_secret
from bestie_tui.store.gate.tokens import RULES, rules_in

SHAPES = content._VENTING + content._CLAUSE_SHAPES

#: Outbursts and ordinary statements, English and Vietnamese, written for this test.
SENTENCES = [
    "Ugh, this week has been awful and I hate my commute", "I just hate everything today",
    "I'm such a failure lol", "today sucks so much", "worst day of my life honestly",
    "chán quá đi mất", "mình thật vô dụng", "ghét tất cả", "hôm nay tệ quá", "muốn khóc quá",
    "why am I so dumb", "what an idiot I am", "I'm so drained today.", "feeling down right now",
    "chán đời quá", "I ruin everything", "nothing ever goes right for me", "what's wrong with me",
    "chả muốn làm gì nữa", "I am tired.", "I eat ice cream when I'm sad", "tired of coffee",
    "I keep my bike in the shed", "Lan thích cà phê sữa đá", "I met the Beatles in 1964",
    "my metal band plays on Fridays", "banana bread is my favourite",
]


def test_a_text_any_venting_shape_matches_holds_one_of_the_words_the_prefilter_scans_for():
    words = content._venting_words()
    assert words is not None
    matched = 0
    for sentence in SENTENCES:
        folded = fold(sentence[:600])
        if any(p.search(folded) for p in SHAPES):
            matched += 1
            assert words.search(folded), sentence
            assert content.venting_reason(sentence) == "one-off venting"
        else:
            assert content.venting_reason(sentence) is None, sentence
    assert matched >= 15


def test_required_literals_are_in_every_match_of_their_pattern():
    for pattern, texts in (
            (r"\bi (?:really )?(?:hate|loathe)\b", ["i hate", "i really loathe"]),
            (r"(?:ab|cd)+x?y", ["aby", "cdcdxy"]),
            (r"(?<![a-z])so+n", ["soon", "son"])):
        compiled = re.compile(pattern)
        literals = required_literals(compiled)
        assert literals, pattern
        for text in texts:
            assert compiled.search(text) and any(lit in text for lit in literals), (pattern, text, literals)
    assert required_literals(re.compile(r"a?b*")) is None  # nothing sure: no text is passed over
    assert required_literals(re.compile(r"hello", re.IGNORECASE)) is None
    assert required_literals(re.compile(r"(?:x|)yz")) == ["yz"]


def test_token_rules_run_exactly_when_their_anchors_are_in_the_text():
    for text in ("sk-ant-abc", "xx AKIAxx", "a=b", "", "hooks.slack.com", "ghp_", "Bearer x", "plain words.",
                 "key: value", "PRIVATE KEY", "eyJhbGciOi.x.y"):
        assert list(rules_in(text)) == [r for r in RULES if any(a in text for a in r.anchors)], text
    assert detect_secret("my token is ghp_" + "a1B2" * 9) == "a GitHub token"
