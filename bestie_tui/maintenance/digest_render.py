"""Rendering a ``Digest`` as plain text (what the chat channels receive) or Markdown: the section
titles, the health line, ``render`` itself (one function for both, so they never disagree), the
one-line memory ``snippet``, and the Markdown escaping of memory text (``md_escape``) and of fix
commands (``md_code``). ``bestie_tui.maintenance.digest`` re-exports these names.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from bestie_tui.store.gate.sensitive import sensitive_kind, withheld
from bestie_tui.text.clock import ago
from bestie_tui.text.words import printable

if TYPE_CHECKING:  # pragma: no cover
    from bestie_tui.maintenance.digest import Digest

#: Characters of a memory's text shown in a line.
SNIPPET = 90


def snippet(text: str, width: int = SNIPPET) -> str:
    """One printable line of at most ``width`` characters. A text holding a sensitive detail
    (health, finance, an identity document: ``gate.sensitive``) is withheld, its category named:
    the digest goes to chat apps."""
    category = sensitive_kind(text)
    line = withheld(category) if category else " ".join(printable(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


# ------------------------------------------------------------------ rendering
SECTION_TITLES = {"pending": "Pending review", "forget": "Forget requests from the assistant",
                  "duplicates": "Duplicate groups", "contradictions": "Contradiction candidates",
                  "stale": "Stale memories"}


def health_line(digest: Digest) -> str:
    """``Health 82/100 (+4.0 since 2026-11-23)`` or why it is unknown."""
    if digest.health is None:
        return "Health: unknown (the hygiene score is not available)"
    line = f"Health {digest.health:g}/100"
    change = digest.health_change
    if change is not None and digest.previous_at is not None:
        moved = f"▲ {change:+g}" if change > 0 else f"▼ {change:+g}" if change < 0 else "no change"
        line += f" ({moved} since {digest.previous_at:%Y-%m-%d})"
    return line


def render(digest: Digest, *, markdown: bool) -> str:
    """The digest as plain text or Markdown (one function, so the two never disagree)."""
    esc = md_escape if markdown else (lambda t: t)
    code = md_code if markdown else (lambda c: c)
    bullet, indent = ("- ", "  - ") if markdown else ("• ", "    ")
    head = f"Bestie memory digest, {digest.generated_at:%Y-%m-%d %H:%M} UTC"
    out = [f"# {head}" if markdown else head, ""]
    out.append(health_line(digest) + ("  |  memory is PAUSED" if digest.paused else ""))
    out.append("Tiers: " + ", ".join(f"{k} {v}" for k, v in digest.tiers.items()))
    out.append("Statuses: " + ", ".join(f"{k} {v}" for k, v in digest.statuses.items()))
    if digest.doctor.error:
        out.append("Doctor: " + esc(snippet(digest.doctor.error, 120)))
    if markdown:  # one paragraph per line
        out[2:] = [line + "  " for line in out[2:]]
    for section in SECTION_TITLES:
        found = [f for f in digest.findings if f.section == section]
        if not found:
            continue
        total = digest.pending_total if section == "pending" else len(digest.forget_requests) \
            if section == "forget" else digest.doctor.totals.get(section, len(found))
        title = f"{SECTION_TITLES[section]} ({total})"
        out += ["", f"## {title}" if markdown else title]
        if section == "pending":
            out += [f"{bullet}{esc(f'#{p.id} ({p.kind}, proposed {ago(p.created_at, digest.generated_at)}): ')}"
                    f"{esc(snippet(p.text))}" for p in digest.pending]
            if digest.pending_total > len(digest.pending):
                out.append(f"{bullet}… and {digest.pending_total - len(digest.pending)} more")
        for f in found:
            if section != "pending":
                ids = " ".join(f"#{i}" for i in f.ids)
                out.append(f"{bullet}{esc(f'{f.summary} ({ids})')}")
            out += [f"{indent}fix: {code(x.command)}" + (f" ({esc(x.note)})" if x.note else "") for x in f.fixes]
    if not digest.findings:
        out += ["", "Nothing to fix: no pending proposals, forget requests, duplicates, contradictions or stale "
                "memories."]
    return "\n".join(out).rstrip() + "\n"


#: Characters that format wherever they stand: emphasis, code spans, link brackets, raw HTML and
#: autolinks, strikethrough, backslash escapes, and ``&`` that starts an entity (``&amp;``).
_MD_INLINE = re.compile(r"[\\`*\[\]<~]|&(?=#?\w+;)")
#: Constructs that format only at the start of a line (after up to three spaces): ATX headings,
#: bullet and ordered list markers, block quotes, setext underlines / thematic breaks.
_MD_LINE_START = re.compile(r"^( {0,3})(#{1,6}(?=\s|$)|[-+](?=\s|$)|>|\d{1,9}(?=[.)](?:\s|$))|=+\s*$|-+\s*$)")


def md_escape(text: str) -> str:
    """Backslash-escape what would make ``text`` Markdown formatting (CommonMark + GFM), and only
    that, so memory text stays literal yet reads cleanly: ``*``, backticks, ``[``/``]``, ``<``,
    ``~``, ``\\`` and entity ``&`` anywhere; ``_`` unless inside a word (``snake_case`` cannot
    emphasise); ``#``, ``-``, ``+``, ``>``, ``1.``, ``===`` only where they would start a block
    (heading, list, quote, underline) at the beginning of a line. ``#13`` or ``(fact)`` stay as they are."""

    def underscore(match: re.Match) -> str:
        i, line = match.start(), match.string
        inside_word = 0 < i < len(line) - 1 and line[i - 1].isalnum() and line[i + 1].isalnum()
        return "_" if inside_word else "\\_"

    out = []
    for line in text.split("\n"):
        line = _MD_INLINE.sub(lambda m: "\\" + m.group(0), line)  # first: it escapes backslashes
        line = re.sub("_", underscore, line)
        out.append(_MD_LINE_START.sub(_escape_block_start, line, count=1))
    return "\n".join(out)


def _escape_block_start(match: re.Match) -> str:
    indent, marker = match.group(1), match.group(0)[len(match.group(1)):]
    if marker[:1].isdigit():  # "1." / "2)": escape the delimiter after the number
        return f"{indent}{marker}\\"
    return f"{indent}\\{marker}"


def md_code(command: str) -> str:
    """``command`` as one inline code span: the fence is one backtick longer than the longest run
    of backticks inside, padded with spaces when needed (CommonMark §6.1)."""
    longest = max((len(run) for run in re.findall(r"`+", command)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if longest or command.startswith(" ") or command.endswith(" ") else ""
    return f"{fence}{pad}{command}{pad}{fence}"
