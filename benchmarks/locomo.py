"""LoCoMo → bestie import file, plus the LoCoMo parsing the retrieval benchmarks share.

Usage::

    python benchmarks/locomo.py ../shared/data/locomo_dev.json --conversation conv-26 --out conv26.json
    bestie memory import conv26.json

LoCoMo (Maharana et al., *Evaluating Very Long-Term Conversational Memory of LLM Agents*, ACL 2024;
github.com/snap-research/locomo, CC BY-NC 4.0) is read by path and never copied into the repo.

What the file holds (the export format of ``bestie_tui/transfer/exchange.py``):

* every dialog turn as a message: role ``user`` (both speakers are people), ``user`` = the speaker's
  name, ``session`` = ``conv-26:session_1``, ``channel`` = ``locomo:conv-26``; ``created_at`` is the
  session's ``session_<n>_date_time`` parsed with dateutil, plus one second per turn so the order
  of a session survives sorting by time. A shared photo is kept as its caption:
  ``text [shares a photo: <blip_caption>]``.
* every per-session observation as a **pending** proposal bound to its speaker (``user``), kind
  ``observation``, source ``locomo:conv-26:D1:3`` (several evidence turns are comma-joined),
  ``created_at`` the session time, ``session`` as above, confidence 0.7 (what ``propose`` uses).

Data quirks handled (see ../shared/data/README.md): date keys without a matching ``session_<n>``
turn list are ignored; observation and QA evidence ids may be lists, comma/semicolon/space-joined
strings, or typos (``D:11:26``, ``D30:05``), and are normalised by ``split_dia_ids``.

Session times carry no time zone; they are stored as given, in the database's naive-UTC convention.

Importable: ``load_conversations``, ``find_conversation``, ``sessions``, ``observations``,
``qa_items``, ``split_dia_ids``, ``parse_session_time`` and ``convert`` do not touch the database.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import click
from dateutil import parser as dateparser

FORMAT = "bestie-memory-export"  # bestie_tui.transfer.exchange.FORMAT; kept literal so this stays standalone
VERSION = 1
OBSERVATION_KIND = "observation"
PROPOSAL_CONFIDENCE = 0.7
ADVERSARIAL_CATEGORY = 5

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DIA_ID = re.compile(r"^D(\d+):(\d+)$")


class LocomoError(Exception):
    """The input is not usable LoCoMo data (unknown conversation, malformed file, bad date)."""


@dataclass(frozen=True)
class Turn:
    """One dialog turn. ``at`` is the session time plus ``index`` seconds (naive)."""

    dia_id: str
    speaker: str
    text: str
    index: int
    at: datetime


@dataclass(frozen=True)
class Session:
    """A dated session that has turns. ``key`` is ``conv-26:session_1``."""

    number: int
    key: str
    at: datetime
    turns: list[Turn]


@dataclass(frozen=True)
class Observation:
    """One LLM-written fact about ``speaker`` from a session, with the turn ids it rests on."""

    session: Session
    speaker: str
    text: str
    dia_ids: list[str]


@dataclass(frozen=True)
class QAItem:
    """A question with its evidence turn ids (normalised; unknown ids dropped)."""

    question: str
    answer: str
    category: int
    evidence: list[str]


# ---------------------------------------------------------------------------- parsing
def load_conversations(path: str | Path) -> list[dict[str, Any]]:
    """The list of conversation objects in a LoCoMo file (``locomo10.json`` layout).

    Raises:
        LocomoError: unreadable file, invalid JSON, or not a list of conversations.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise LocomoError(f"cannot read {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise LocomoError(f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from exc
    if not isinstance(data, list) or not all(isinstance(c, dict) and "sample_id" in c for c in data):
        raise LocomoError(f"{path} is not a LoCoMo file (expected a list of conversations with sample_id)")
    return data


def find_conversation(conversations: list[dict[str, Any]], sample_id: str) -> dict[str, Any]:
    """The conversation whose ``sample_id`` is ``sample_id``. Raises LocomoError naming the known ids."""
    for conv in conversations:
        if conv.get("sample_id") == sample_id:
            return conv
    known = ", ".join(str(c.get("sample_id")) for c in conversations)
    raise LocomoError(f"no conversation {sample_id!r} in this file; it has: {known}")


def parse_session_time(text: str) -> datetime:
    """Parse a LoCoMo session time such as ``"1:56 pm on 8 May, 2023"`` (dateutil) → naive datetime.

    Raises:
        LocomoError: the text is not a date.
    """
    try:
        return dateparser.parse(text, fuzzy=True).replace(tzinfo=None)
    except (ValueError, OverflowError, TypeError) as exc:
        raise LocomoError(f"cannot parse session time {text!r}: {exc}") from exc


def turn_text(turn: dict[str, Any]) -> str:
    """A turn's text, with a shared photo's machine caption kept as ``[shares a photo: …]``."""
    text = str(turn.get("text", "")).strip()
    caption = turn.get("blip_caption")
    if caption:
        text = f"{text} [shares a photo: {caption}]".strip()
    return text


def sessions(conv: dict[str, Any]) -> list[Session]:
    """The conversation's dated sessions that have turns, in session order.

    Date keys without a ``session_<n>`` turn list (conv-26 has 20–35) are not sessions.
    """
    sample_id = conv["sample_id"]
    body = conv["conversation"]
    out = []
    numbers = sorted(int(m.group(1)) for key in body if (m := _SESSION_KEY.match(key)))
    for n in numbers:
        turns = body[f"session_{n}"]
        when = body.get(f"session_{n}_date_time")
        if not isinstance(turns, list) or not turns or not when:
            continue
        start = parse_session_time(when)
        out.append(Session(
            number=n, key=f"{sample_id}:session_{n}", at=start,
            turns=[Turn(dia_id=t["dia_id"], speaker=t["speaker"], text=turn_text(t), index=i,
                        at=start + timedelta(seconds=i)) for i, t in enumerate(turns)],
        ))
    return out


def split_dia_ids(value: Any) -> list[str]:
    """Normalise LoCoMo turn references: a list, or a string joined by ``,``/``;``/spaces, to
    ``["D1:3", …]``. Fixes ``D:11:26`` → ``D11:26`` and ``D30:05`` → ``D30:5``; drops what is not
    an id (``"D"``). Order kept, duplicates removed."""
    parts: Iterable[Any] = value if isinstance(value, list) else [value]
    out: list[str] = []
    for part in parts:
        for token in re.split(r"[;,\s]+", str(part or "")):
            token = token.strip()
            if token.startswith("D:"):
                token = "D" + token[2:]
            m = _DIA_ID.match(token)
            if m:
                norm = f"D{int(m.group(1))}:{int(m.group(2))}"
                if norm not in out:
                    out.append(norm)
    return out


def observations(conv: dict[str, Any], dated: list[Session] | None = None) -> list[Observation]:
    """Per-session observations of both speakers, in session order, for sessions that have turns."""
    by_number = {s.number: s for s in (dated if dated is not None else sessions(conv))}
    out = []
    for key, per_speaker in conv.get("observation", {}).items():
        m = re.match(r"^session_(\d+)_observation$", key)
        session = by_number.get(int(m.group(1))) if m else None
        if session is None or not isinstance(per_speaker, dict):
            continue
        for speaker, facts in per_speaker.items():
            for fact in facts:
                text = str(fact[0]).strip() if fact else ""
                if text:
                    out.append(Observation(session, speaker, text, split_dia_ids(fact[1] if len(fact) > 1 else "")))
    out.sort(key=lambda o: o.session.number)
    return out


def qa_items(conv: dict[str, Any], include_adversarial: bool = False) -> list[QAItem]:
    """QA items with evidence normalised and restricted to turns that exist. Category 5
    (adversarial, unanswerable) is left out unless ``include_adversarial``."""
    known = {t.dia_id for s in sessions(conv) for t in s.turns}
    out = []
    for item in conv.get("qa", []):
        category = int(item.get("category", 0))
        if category == ADVERSARIAL_CATEGORY and not include_adversarial:
            continue
        answer = item.get("answer", item.get("adversarial_answer", ""))
        out.append(QAItem(question=item["question"], answer=str(answer), category=category,
                          evidence=[d for d in split_dia_ids(item.get("evidence", [])) if d in known]))
    return out


# ---------------------------------------------------------------------------- conversion
def convert(conv: dict[str, Any], exported_at: datetime | None = None) -> dict[str, Any]:
    """One LoCoMo conversation → a dict in bestie's export format (see the module docstring).

    Returns ``{"format", "version", "exported_at", "memories": [pending proposals], "messages": [...]}``,
    ready for ``bestie_tui.transfer.exchange.import_data`` or ``json.dump``.
    """
    sample_id = conv["sample_id"]
    channel = f"locomo:{sample_id}"
    dated = sessions(conv)
    messages = [
        {"role": "user", "text": t.text, "user": t.speaker, "channel": channel, "session": s.key,
         "created_at": t.at.isoformat()}
        for s in dated for t in s.turns if t.text
    ]
    memories = [
        {"text": o.text, "kind": OBSERVATION_KIND, "status": "pending", "scope": "project",
         "user": o.speaker, "channel": channel, "session": o.session.key,
         "source": f"locomo:{sample_id}:{','.join(o.dia_ids)}" if o.dia_ids else f"locomo:{sample_id}",
         "confidence": PROPOSAL_CONFIDENCE, "created_at": o.session.at.isoformat(),
         "updated_at": o.session.at.isoformat()}
        for o in observations(conv, dated)
    ]
    stamp = exported_at or max((s.at for s in dated), default=datetime(1970, 1, 1))
    return {"format": FORMAT, "version": VERSION, "exported_at": stamp.replace(microsecond=0).isoformat(),
            "memories": memories, "messages": messages}


def convert_file(path: str | Path, sample_id: str) -> dict[str, Any]:
    """``convert`` of conversation ``sample_id`` in the LoCoMo file at ``path``. Raises LocomoError."""
    return convert(find_conversation(load_conversations(path), sample_id))


@click.command()
@click.argument("locomo_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--conversation", "sample_id", required=True, help="sample_id, e.g. conv-26")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Output file (default: standard output).")
def main(locomo_file: Path, sample_id: str, out: Path | None) -> None:
    """Convert one LoCoMo conversation into a file `bestie memory import` accepts."""
    try:
        data = convert_file(locomo_file, sample_id)
    except LocomoError as exc:
        raise click.ClickException(str(exc)) from None
    text = json.dumps(data, ensure_ascii=False, indent=1)
    if out is None:
        sys.stdout.write(text + "\n")
        return
    try:
        out.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        raise click.ClickException(f"cannot write {out}: {exc}") from None
    click.echo(f"wrote {out}: {len(data['messages'])} messages, {len(data['memories'])} pending proposals "
               f"from {sample_id}", err=True)


if __name__ == "__main__":
    main()
