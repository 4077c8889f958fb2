"""The demo database's chat history: a few hundred messages of the made-up owner Linh over several
sessions (deploys, the grocery bot, food, travel, reading), so paging and history compression have
something to show. Written by the team; nothing here is real."""

from __future__ import annotations

from collections.abc import Iterator

#: (session, days before "now", opening user line, topic word, details the turns go through).
SESSIONS: list[tuple[str, int, str, str, list[str]]] = [
    ("demo-deploys", 20, "Let's plan this week's Sông Hồng deploys.", "deploy",
     ["the dispatch API", "the driver app backend", "the billing worker", "the map tiles cache",
      "the webhook relay", "the route optimiser", "the SMS gateway", "the audit log exporter"]),
    ("demo-cho-bot", 16, "Cho-bot needs a few new commands for the family.", "command",
     ["/add for groceries", "/done to tick items off", "/list by aisle", "/budget for the month",
      "/who to see who bought what", "/undo for mistakes", "/remind for the market run", "/export to CSV"]),
    ("demo-food", 12, "Help me plan meals for the week, vegetarian on the fifteenth.", "meal",
     ["phở chay on Monday", "bún riêu on Tuesday", "cơm tấm on Wednesday", "bánh xèo on Thursday",
      "mì Quảng on Friday", "xôi gấc for Saturday breakfast", "lẩu nấm on Sunday", "chè đậu for dessert"]),
    ("demo-hue-trip", 8, "I'm going to Huế for my cousin's wedding; help me pack and plan.", "stop",
     ["the train from Hà Nội", "the citadel in the morning", "Thiên Mụ pagoda", "a boat on the Perfume River",
      "bún bò Huế for lunch", "the wedding ceremony", "Đông Ba market for gifts", "the night train back"]),
    ("demo-reading", 5, "Quiz me on chapter 7 of the data-intensive book, transactions.", "idea",
     ["atomicity", "isolation levels", "read committed", "snapshot isolation", "lost updates",
      "write skew", "serializable snapshot isolation", "two-phase locking"]),
    ("demo-interns", 3, "An and Bảo start on Monday; help me prepare their first week.", "task",
     ["laptop setup", "access to staging 'bamboo'", "a tour of the dispatch code", "pairing on a small bug",
      "the deploy checklist", "writing their first test", "a review of a pull request", "a Friday demo"]),
    ("demo-running", 2, "Plan my Saturday runs around Hồ Tây for the next month.", "run",
     ["an easy 5 km", "6 km with strides", "a 7 km tempo", "8 km long and slow",
      "a rest week at 5 km", "9 km with a hill", "10 km steady", "a 5 km parkrun-style test"]),
]


def session_messages() -> Iterator[tuple[str, str, int, int]]:
    """Yields ``(session, role, text, minutes before now)``:
    each session opens with the owner's line, then three turns per detail (ask, answer, follow-up)
    and a closing pair, about forty messages a session."""
    for session, days, opening, topic, details in SESSIONS:
        turns = [("user", opening), ("assistant", f"Happy to help. Which {topic} first?")]
        for n, detail in enumerate(details, 1):
            turns.append(("user", f"Start with {detail}. What should I watch out for?"))
            turns.append(("assistant", f"For {detail}: keep it small, check it twice, and note what changed "
                                       f"({topic} {n} of {len(details)})."))
            turns.append(("user", f"OK, {detail} is done. Cảm ơn!" if n % 2 else f"Noted {detail}; next one."))
            turns.append(("assistant", "Great — on to the next." if n < len(details) else "That was the last one."))
        turns.append(("user", f"Summarise the {topic}s we went through, in one line each."))
        turns.append(("assistant", "; ".join(details) + "."))
        start = days * 24 * 60
        for i, (role, text) in enumerate(turns):
            yield session, role, text, start - i * 2
