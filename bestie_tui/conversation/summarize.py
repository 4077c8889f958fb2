"""Offline extractive summarizer for evicted conversation turns.

The default ``summarizer`` of ``conversation.compress_history``. Nothing is generated: every line
of the summary is a sentence that was said (or a line of the previous summary), so it cannot invent
facts. Method:

1. Split the evicted turns into sentences; each keeps its speaker and date (``[2023-05-08] Caroline: …``).
2. Rank sentences by the cosine between their TF-IDF vector and the centroid of all sentences
   (centroid-based extractive summarization, Radev et al., "Centroid-based summarization of multiple
   documents", 2004), with a bonus for sentences that hold a name, a date or a number — the facts a
   later turn is most likely to need and the least likely to be re-derived.
3. Take the best sentences while they fit the character cap; print them in conversation order.
4. Finish with ``Names:`` and ``Dates:`` lines (most frequent first) so names and dates of the evicted
   part survive even when their sentences did not fit.

A previous summary is parsed back (its lines become candidates again, its names and dates are
merged), so compressing twice still yields one summary. scikit-learn is imported lazily.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

DEFAULT_MAX_CHARS = 2000
#: Longest sentence kept whole (characters); longer ones are shortened with an ellipsis.
MAX_SENTENCE_CHARS = 280
#: Share of the cap the ``Names:``/``Dates:`` lines may take.
ENTITY_SHARE = 0.25
NAME_BONUS, DATE_BONUS, NUMBER_BONUS = 0.3, 0.3, 0.15
MIN_WORDS = 4

_SPLIT = re.compile(r"(?<=[.!?…])\s+|\n+")
_MONTHS = ("january february march april may june july august september october november december "
           "jan feb mar apr jun jul aug sep sept oct nov dec").split()
_DAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_DATE = re.compile(
    r"\b(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?"
    r"|\d{1,2}(?:st|nd|rd|th)?\s+(?:" + "|".join(_MONTHS) + r")\b\.?(?:,?\s+\d{4})?"
    r"|(?:" + "|".join(_MONTHS) + r")\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?"
    r"|(?:" + "|".join(_DAYS) + r")|(?:19|20)\d{2}"
    r"|ngày\s+\d{1,2}(?:\s+tháng\s+\d{1,2})?|tháng\s+\d{1,2})\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
_TAG = re.compile(r"^\[(\d{4}-\d{2}-\d{2})\]\s+")
# Weekday abbreviations are calendar words for names ("Fri"), not dates: too ambiguous ("sat", "wed").
_CALENDAR_WORDS = frozenset(_MONTHS + _DAYS + "mon tue tues wed thu thur thurs fri sat sun".split())
#: Openings of greetings and chit-chat ("Hey Mel, long time no chat!", "Wow, thanks!"): such a
#: sentence, when it holds no number, date or name other than the speakers', ranks after every other.
_CHITCHAT = re.compile(
    r"^(?:hey|hi|hiya|hello|wow|whoa|thanks|thank you|thx|long time|yeah|yep|yes|oh|ooh|aw+|omg|haha\w*"
    r"|lol|good to|great to|nice to|so good|congrats|congratulations|glad|ok|okay|sure|cool|awesome|amazing"
    r"|bye|see you|take care|that's (?:great|awesome|amazing|so|really))\b", re.IGNORECASE)
#: Sentences shorter than this (in words) without a fact are chit-chat too ("Long time no talk!").
SHORT_WORDS = 6
_DIGITS = re.compile(r"\d+")


@dataclass
class _Sentence:
    order: tuple[int, int]
    line: str           # what the summary prints
    text: str           # what is ranked (no tag, no speaker)
    names: list[str]
    dates: list[str]
    has_number: bool


def message_text(message: dict[str, Any]) -> str:
    """Plain text of an OpenAI-shaped message: ``content`` (or ``text``) as a string, or the text
    parts of a content list; tool calls are described as ``called name(arguments)``."""
    content = message.get("content", message.get("text"))
    if isinstance(content, list):
        content = " ".join(str(p.get("text", "")) for p in content
                           if isinstance(p, dict) and p.get("type", "text") == "text")
    text = str(content or "")
    for call in message.get("tool_calls") or []:
        fn = call.get("function", {}) if isinstance(call, dict) else {}
        text += f" called {fn.get('name', '?')}({str(fn.get('arguments', ''))[:80]})"
    return text.strip()


def message_day(message: dict[str, Any]) -> str | None:
    """``YYYY-MM-DD`` of the message's ``created_at``/``at``/``timestamp`` (datetime or ISO text), if any."""
    value = message.get("created_at") or message.get("at") or message.get("timestamp")
    if isinstance(value, (datetime, date)):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}", value):
        return value[:10]
    return None


def speaker(message: dict[str, Any]) -> str:
    """Who said it: ``name`` (or ``user``) when given, else the role."""
    return str(message.get("name") or message.get("user") or message.get("role") or "?")


def find_names(sentence: str, stop: frozenset[str]) -> list[str]:
    """Capitalised words that are not the first word of the sentence, not stop words and not
    calendar words: a cheap, language-neutral stand-in for named-entity recognition."""
    words = _WORD.findall(sentence)
    out = []
    for word in words[1:]:
        clean = word.rstrip("'’s-") if word.endswith(("'s", "’s")) else word.rstrip("'’-")
        low = clean.lower().replace("'", "").replace("’", "")
        if (len(clean) > 1 and clean[0].isupper() and not clean.isupper()
                and low not in stop and low not in _CALENDAR_WORDS):
            out.append(clean)
    return out


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class ExtractiveSummarizer:
    """Callable ``(previous_summary_body | None, evicted_messages) -> summary body`` (plain text).

    Args:
        max_chars: cap on the returned body, in characters (default 2000).

    The body is at most ``max_chars`` characters: ``- [date] speaker: sentence`` lines in conversation
    order, then ``Names: …`` and ``Dates: …``. When no sentence, name or date is found, one line
    ``- N short turns without a sentence to keep (samples)``; ``""`` only for no messages.
    """

    def __init__(self, max_chars: int = DEFAULT_MAX_CHARS):
        if int(max_chars) < 80:
            from bestie_tui.errors import InvalidValueError

            raise InvalidValueError(f"summary cap must be at least 80 characters, not {max_chars}")
        self.max_chars = int(max_chars)

    def __call__(self, previous: str | None, messages: list[dict[str, Any]]) -> str:
        from bestie_tui.text.analysis import stop_words

        stop = stop_words() | {"i", "im", "ive", "id", "ill"}
        sentences, names, dates = self._previous(previous, stop)
        short: list[str] = []  # pieces too short to be a summary line, for the fallback line
        previous_names, names = names, Counter()  # names of the previous summary stay names
        lower: Counter[str] = Counter()  # lowercase mentions: "perfect" said plainly is not a name
        for index, message in enumerate(messages):
            day = message_day(message)
            who = speaker(message)
            for part, piece in enumerate(p.strip() for p in _SPLIT.split(message_text(message))):
                if not piece:
                    continue
                found_names = find_names(piece, stop)
                found_dates = [m.group(0) for m in _DATE.finditer(piece)]
                names.update(found_names)
                lower.update(w for w in _WORD.findall(piece) if w.islower())
                dates.update(found_dates)
                if len(piece.split()) < MIN_WORDS:
                    short.append(piece)
                    continue
                tag = f"[{day}] " if day else ""
                line = f"- {tag}{who}: {_shorten(piece, MAX_SENTENCE_CHARS)}"
                sentences.append(_Sentence((1, index * 1000 + part), line, piece, found_names, found_dates,
                                           bool(_NUMBER.search(piece))))
            if day:
                dates[day] += 1
        speakers = {speaker(m) for m in messages}
        # A name is capitalised mid-sentence at least twice and not mostly said in lowercase: without a
        # dictionary, one capitalised "Perfect" or "Embracing" (a title, an emphasis) cannot be told
        # from a name, so single mentions stay out of the Names line (their sentences may still be kept).
        real = {n for n, c in names.items() if c >= 2 and lower[n.lower()] < 5 * c} | set(previous_names)
        for sentence in sentences:  # the name bonus is for names said about someone, not vocatives
            sentence.names = [n for n in sentence.names if n in real and not _is_speaker(n, speakers)]
        names = Counter({n: c for n, c in names.items() if n in real}) + previous_names
        body = self._compose(sentences, names, dates, speakers)
        if not body and messages:
            # Never an empty summary: the evicted turns are at least counted and sampled.
            sample = _shorten(", ".join(dict.fromkeys(short)), 80)
            turns = f"{len(messages)} short turn{'s' if len(messages) != 1 else ''}"
            body = f"- {turns} without a sentence to keep" + (f" ({sample})" if sample else "")
        return body[: self.max_chars]

    # --------------------------------------------------------------- internals
    def _previous(self, previous: str | None, stop: frozenset[str]):
        sentences: list[_Sentence] = []
        names: Counter[str] = Counter()
        dates: Counter[str] = Counter()
        for i, raw in enumerate((previous or "").splitlines()):
            line = raw.strip()
            if line.startswith("Names:"):
                # earlier names outrank a single new mention: they survived a previous selection
                names.update({n.strip(): 2 for n in line[6:].split(",") if n.strip()})
            elif line.startswith("Dates:"):
                dates.update({d.strip(): 2 for d in line[6:].split(",") if d.strip()})
            elif line.startswith("- "):
                body = _TAG.sub("", line[2:])
                body = body.split(": ", 1)[1] if ": " in body[:60] else body
                sentences.append(_Sentence((0, i), line, body, find_names(body, stop),
                                           [m.group(0) for m in _DATE.finditer(body)], bool(_NUMBER.search(body))))
        return sentences, names, dates

    def _rank(self, sentences: list[_Sentence], speakers: set[str]) -> list[float]:
        """Salience of each sentence: the summed TF-IDF weight of its distinct content words, where a
        word's weight is ``log(1 + occurrences in the evicted text) × idf`` (so topics that recur
        count, words said everywhere — "wow", "great" — do not), divided by √(words) so long
        sentences do not win by length alone; times the name/date/number bonus."""
        if not sentences:
            return []
        import numpy as np
        from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

        from bestie_tui.text.analysis import analyze_words

        vectorizer = CountVectorizer(analyzer=analyze_words, binary=True)
        try:
            counts = vectorizer.fit_transform([s.text for s in sentences])
        except ValueError:  # no content words at all (e.g. only stop words)
            return [0.0] * len(sentences)
        idf = TfidfTransformer(smooth_idf=True).fit(counts).idf_
        weight = np.log1p(np.asarray(counts.sum(axis=0)).ravel()) * (idf - 1.0)
        # Speakers' names are mostly vocatives ("Thanks, Jon!"): they carry no information.
        for name in speakers:
            for feature in analyze_words(name):
                if feature in vectorizer.vocabulary_:
                    weight[vectorizer.vocabulary_[feature]] = 0.0
        salience = counts @ weight
        sizes = np.sqrt(np.maximum(np.asarray(counts.sum(axis=1)).ravel(), 1))
        out = []
        for s, score, size in zip(sentences, salience, sizes):
            bonus = 1.0 + NAME_BONUS * bool(s.names) + DATE_BONUS * bool(s.dates) + NUMBER_BONUS * s.has_number
            out.append(float(score / size) * bonus)
        return out

    def _compose(self, sentences: list[_Sentence], names: Counter, dates: Counter, speakers: set[str]) -> str:
        entity_cap = int(self.max_chars * ENTITY_SHARE)
        name_line = _entity_line("Names", names, entity_cap // 2)
        date_line = _entity_line("Dates", dates, entity_cap - len(name_line), chronological=True)
        tail = [line for line in (name_line, date_line) if line]
        room = self.max_chars - sum(len(t) + 1 for t in tail)
        chosen: list[_Sentence] = []
        seen: list[tuple[set[str], set[str]]] = []  # (words, numbers) of each chosen sentence
        variants: list[bool] = []  # whether it already has (or is) a kept variant
        used = 0
        ranked = sorted(zip(self._rank(sentences, speakers), sentences),
                        key=lambda p: (_chitchat(p[1]), -p[0], p[1].order))
        for _score, s in ranked:
            words, numbers = set(s.text.lower().split()), set(_DIGITS.findall(s.text))
            # Redundancy check (the idea of MMR, Carbonell & Goldstein 1998, as a hard filter): skip a
            # sentence that mostly repeats one already chosen, unless it brings numbers of its own.
            similar = [i for i, (other, _n) in enumerate(seen)
                       if len(words & other) > 0.6 * min(len(words), len(other))]
            # ...at most one variant per chosen sentence, or counters ("turn 7", "turn 8") would fill it.
            if similar and (any(numbers <= seen[i][1] for i in similar) or any(variants[i] for i in similar)):
                continue
            if used + len(s.line) + 1 <= room:
                chosen.append(s)
                for i in similar:
                    variants[i] = True
                seen.append((words, numbers))
                variants.append(bool(similar))
                used += len(s.line) + 1
        body = [s.line for s in sorted(chosen, key=lambda s: s.order)]
        return "\n".join(body + tail)[: self.max_chars]


def _chitchat(s: _Sentence) -> bool:
    """A greeting (``_CHITCHAT``) without a number or date, or a short remark (under ``SHORT_WORDS``
    words) without a number, date or name."""
    if s.dates or s.has_number:
        return False
    return bool(_CHITCHAT.match(s.text)) or (len(s.text.split()) < SHORT_WORDS and not s.names)


def _is_speaker(name: str, speakers: set[str]) -> bool:
    """``name`` is a speaker's name, a part of it, or a short form of it ("Mel" for Melanie)."""
    for who in speakers:
        for part in who.split():
            if name == part or (len(name) >= 3 and part.startswith(name)):
                return True
    return False


def _entity_line(label: str, counts: Counter, cap: int, chronological: bool = False) -> str:
    """``"Label: a, b, c"``, most frequent first (``chronological``: ISO days first, in date order),
    at most ``cap`` characters; ``""`` if empty."""
    line = ""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0].lower()))
    if chronological:
        iso_days = sorted(k for k in counts if re.match(r"^\d{4}-\d{2}-\d{2}$", k))
        ranked = [(k, counts[k]) for k in iso_days] + [kv for kv in ranked if kv[0] not in iso_days]
    for value, _count in ranked:
        candidate = f"{line}, {value}" if line else f"{label}: {value}"
        if len(candidate) > cap:
            break
        line = candidate
    return line


def summarize(previous: str | None, messages: Iterable[dict[str, Any]], max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """Functional form of ``ExtractiveSummarizer(max_chars)(previous, list(messages))``."""
    return ExtractiveSummarizer(max_chars)(previous, list(messages))
