"""Time to first paint of the Tiers view, and of a jump to the last row, at 1k and 10k memories.

Builds a temp database per size through the ``MemoryStore`` facade (persona facts from MSC /
PersonaChat read by path, or synthetic text when the file is absent), starts ``BestieApp`` headless
and measures, with ``time.perf_counter``:

* first paint: from creating the app until the Tiers list has drawn its first memory row (the view
  opens on the core tier);
* w: from pressing ``w`` until the Working tier (the biggest) has drawn its first row;
* G: from pressing ``G`` until the list has drawn the last memory with the cursor on it;
* filter: with ``/musi`` typed, from pressing ``c`` until the list filtered by "music" (tolerant
  match over the whole tier) has drawn its first line.

"Drawn" means the compositor asked ``MemoryList.render_line`` for that row (the headless driver
then writes the frame). Each figure is the median of ``--repeat`` runs. Prints a Markdown table.

A second table (``--views-sizes``, default 100000) covers the other views on a database written with
bulk SQL (persona facts; 5 % core, 80 % working, 10 % archived, 5 % pending proposals) and indexed
once with ``doc_index.reindex`` before the runs:

* first paint, as above;
* first switch to each view (keys 2–7): from the key press until the new screen is current and
  has been painted once (work its workers do afterwards is measured on its own below);
* Pending similar list: from the switch (first proposal) and from each ``j`` (next four proposals)
  until the similar list has been filled, median per proposal;
* Context first pack: with the query box focused, from the last keystroke of "sleep" until the
  pack for that query is shown (the view's 0.25 s typing debounce included);
* quit: from pressing ``q`` until the app has exited.

A third table (``--demo``, issue 17) covers the same view measures on the demo database that
``bestie tui --demo`` opens (about fifty memories, a few hundred messages), beside a baseline in the
same run: a bare Textual app with seven empty screens switched by the same keys, the framework's
own floor for a switch and a quit. Targets: first switch to any view ≤ 0.3 s, quit ≤ 0.5 s.
The pilot's pause waits until the process is idle (no thread busy), so "switch to" also counts what
the view's workers compute meanwhile; "first frame of" is the time from the key press until the
first frame of the new screen was written to the (headless) terminal, in both apps.

    .venv/bin/python benchmarks/first_paint.py [--data PATH] [--sizes 1000,10000] [--repeat 3]
        [--views-sizes 100000] [--demo] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from textual.app import App

from bestie_tui.errors import BestieError
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.widgets.memory_list import MemoryList

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "msc_personas_all.json"


def persona_facts(path: Path) -> list[str]:
    """Unique persona sentences from ``msc_personas_all.json`` (splits → dialogs → speakers → facts)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    seen: dict[str, None] = {}
    for dialogs in data.values():
        for dialog in dialogs:
            for facts in dialog.values():
                if isinstance(facts, list):
                    for fact in facts:
                        seen.setdefault(" ".join(str(fact).split()), None)
    return [fact for fact in seen if fact]


def synthetic_facts(n: int, rng: random.Random) -> list[str]:
    """``n`` distinct invented facts, for machines without the shared data."""
    likes = ["prefers", "enjoys", "avoids", "is learning", "asked about", "decided on"]
    things = ["Vietnamese replies", "morning meetings", "pho in Hà Nội", "Rust for CLI tools", "short emails",
              "jazz while coding", "the Q3 launch plan", "green tea", "trail running", "SQLite backups"]
    when = ["on weekdays", "when travelling", "for the bestie project", "since last spring", "with the team"]
    return [f"User {rng.choice(likes)} {rng.choice(things)} {rng.choice(when)} (note {i})" for i in range(n)]


def kind_of(fact: str) -> str:
    low = fact.lower()
    if any(w in low for w in ("like", "love", "enjoy", "prefer", "favorite", "hate")):
        return "preference"
    if low.startswith(("i am", "i'm", "my name")):
        return "identity"
    return "note"


def build_database(path: Path, facts: list[str], n: int, rng: random.Random) -> int:
    """Write ``n`` memories (5% core, 80% working, 15% archive: forgotten or superseded). Returns the
    number written (facts the secret guard refuses are skipped)."""
    store = MemoryStore(path)
    written = 0
    try:
        # One outer transaction: each store write nests as a savepoint, so building 10k rows is quick.
        with store.db.atomic():
            for fact in facts:
                if written >= n:
                    break
                roll = rng.random()
                scope = "core" if roll < 0.05 else ("session" if roll < 0.25 else "project")
                try:
                    memory = store.add(kind_of(fact), fact, scope=scope, user="owner", channel="telegram:1",
                                       confidence=round(rng.uniform(0.5, 1.0), 2))
                except BestieError:
                    continue
                written += 1
                if roll > 0.90:
                    store.forget(memory.id)
                elif roll > 0.85 and written > 1:
                    previous = store.get(memory.id - 1)
                    if previous.tier != "archive" and not previous.pinned:
                        store.supersede(previous.id, memory.id)
    finally:
        store.close()
    return written


async def measure(path: Path, size: tuple[int, int]) -> tuple[float, float, float, float, int]:
    """(first paint, w → Working painted, G → last row painted, filter keystroke → painted, Working
    rows); times in seconds, for one headless run over ``path``."""
    painted: dict[str, float] = {}
    original = MemoryList.render_line

    def spying_render_line(self, y):
        strip = original(self, y)
        index = round(self.scroll_y) + y
        if self.total and index == 0 and "first" not in painted:
            painted["first"] = time.perf_counter()
        if self.total and index == 0 and self.filters.get("tier") == "working" and "working" not in painted:
            painted["working"] = time.perf_counter()
        if index == 0 and self.filters.get("query") == "music" and "filter" not in painted:
            painted["filter"] = time.perf_counter()
        if self.total and index == self.total - 1 and self.cursor == index and "last" not in painted:
            painted["last"] = time.perf_counter()
        return strip

    MemoryList.render_line = spying_render_line
    store = MemoryStore(path)
    try:
        started = time.perf_counter()
        app = BestieApp(store, poll_interval=0)
        async with app.run_test(size=size) as pilot:
            while "first" not in painted:
                await pilot.pause(0.005)
            first = painted["first"] - started
            await pilot.pause()
            painted.pop("working", None)
            pressed = time.perf_counter()
            await pilot.press("w")
            while "working" not in painted:
                await pilot.pause(0.005)
            switch = painted["working"] - pressed
            rows = app.screen.memory_list.total
            await pilot.pause()
            pressed = time.perf_counter()
            await pilot.press("G")
            while "last" not in painted:
                await pilot.pause(0.005)
            last = painted["last"] - pressed
            await pilot.press("slash", *"musi")
            await pilot.pause()
            pressed = time.perf_counter()
            await pilot.press("c")
            while "filter" not in painted:
                await pilot.pause(0.005)
            filtered = painted["filter"] - pressed
    finally:
        MemoryList.render_line = original
        store.close()
    return first, switch, last, filtered, rows


def bulk_database(path: Path, facts: list[str], n: int, rng: random.Random) -> int:
    """``n`` memories written with one bulk SQL insert (5 % core, 80 % working, 10 % forgotten,
    5 % pending), then indexed once. Returns ``n``."""
    import sqlite3
    from datetime import datetime, timedelta

    from bestie_tui.store import doc_index
    from bestie_tui.text import words as textmod

    MemoryStore(path).close()
    now = datetime(2026, 11, 30)
    rows = []
    for i in range(n):
        fact = facts[i % len(facts)] + ("" if i < len(facts) else f" ({i // len(facts)})")
        roll = rng.random()
        status = "pending" if roll > 0.95 else ("forgotten" if roll > 0.85 else "approved")
        layer, scope = ("core", "core") if roll < 0.05 else ("working", "project")
        at = (now - timedelta(minutes=i)).isoformat(" ")
        rows.append((fact, kind_of(fact), status, scope, layer, round(rng.uniform(0.5, 1.0), 2), "owner",
                     "telegram:1", at, at, textmod.normalize(fact), textmod.search_text(fact)))
    conn = sqlite3.connect(path)
    conn.executemany("INSERT INTO memory (text, kind, status, scope, layer, pinned, stale, access_count, confidence, "
                     "user, channel, created_at, updated_at, norm, terms) "
                     "VALUES (?, ?, ?, ?, ?, 0, 0, 0, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.commit()
    conn.close()
    store = MemoryStore(path)
    try:
        doc_index.reindex(store.db)
    finally:
        store.close()
    return n


async def switch(app, pilot, key: str) -> float:
    """Press ``key`` and wait until another screen is current and has had one refresh (painted);
    seconds from the key press."""
    before = app.screen
    pressed = time.perf_counter()
    await pilot.press(key)
    while app.screen is before:
        await pilot.pause(0.002)
    await pilot.pause()  # one refresh: the new screen painted
    return time.perf_counter() - pressed


async def measure_views(path: Path, size: tuple[int, int]) -> dict[str, float]:
    """One headless run over ``path``: first paint, first switch to each view, the Pending similar
    list per proposal, the Context view's first pack and quitting; seconds."""
    from bestie_tui.tui.screens.context_screen import ContextScreen
    from bestie_tui.tui.screens.pending_screen import PendingScreen

    events: dict[str, list[float]] = {"first": [], "similar": [], "pack": []}
    original_line = MemoryList.render_line
    original_similar = PendingScreen._show_similar
    original_show = ContextScreen._show

    def spying_render_line(self, y):
        strip = original_line(self, y)
        if self.total and round(self.scroll_y) + y == 0:
            events["first"].append(time.perf_counter())
        return strip

    def spying_similar(self, memory_id, text, result):
        original_similar(self, memory_id, text, result)
        events["similar"].append(time.perf_counter())

    def spying_show(self, request, result):
        original_show(self, request, result)
        if request and request[0] == "sleep" and not isinstance(result, Exception):
            events["pack"].append(time.perf_counter())

    async def until(name: str, count: int, pilot, limit: float = 60.0) -> float:
        deadline = time.perf_counter() + limit
        while len(events[name]) < count:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"no {name!r} event #{count} within {limit:.0f} s")
            await pilot.pause(0.002)
        return events[name][count - 1]

    MemoryList.render_line = spying_render_line
    PendingScreen._show_similar = spying_similar
    ContextScreen._show = spying_show
    frames, original_display = spy_frames()
    out: dict[str, float] = {}
    frame_times: dict[str, float] = {}
    store = MemoryStore(path)
    try:
        started = time.perf_counter()
        app = BestieApp(store, poll_interval=0)
        async with app.run_test(size=size) as pilot:
            out["first paint"] = await until("first", 1, pilot) - started
            await pilot.pause()
            for key, name in (("2", "pending"), ("3", "context"), ("4", "doctor"), ("5", "cleanup"),
                              ("6", "messages"), ("7", "health"), ("1", "tiers")):
                pressed = time.perf_counter()
                out[f"switch to {name}"] = await switch(app, pilot, key)
                frame_times[name] = first_frame(frames, app.screen, pressed)
                if name == "pending":
                    similar = [await until("similar", 1, pilot) - pressed]
                    for n in range(2, 6):
                        pressed = time.perf_counter()
                        await pilot.press("j")
                        similar.append(await until("similar", n, pilot) - pressed)
                    out["pending similar (median of 5)"] = statistics.median(similar)
                if name == "context":
                    await pilot.press(*"slee")  # the cursor starts in the query box
                    pressed = time.perf_counter()
                    await pilot.press("p")
                    out["context first pack"] = await until("pack", 1, pilot) - pressed
                    await pilot.press("escape")
            await app.workers.wait_for_complete()
            pressed = time.perf_counter()
            await pilot.press("q")
            while app.is_running:
                await pilot.pause(0.002)
        out["quit"] = time.perf_counter() - pressed
        out.update({f"first frame of {name}": t for name, t in frame_times.items()})
    finally:
        App._display = original_display
        MemoryList.render_line = original_line
        PendingScreen._show_similar = original_similar
        ContextScreen._show = original_show
        store.close()
    return out


def spy_frames():
    """Record ``(time, screen)`` for every frame the app writes to its (headless) terminal; returns
    the list and the original ``App._display`` to put back."""
    frames: list[tuple[float, object]] = []
    original = App._display

    def spying_display(self, screen, renderable):
        frames.append((time.perf_counter(), screen))
        return original(self, screen, renderable)

    App._display = spying_display
    return frames, original


def first_frame(frames: list, screen, since: float) -> float:
    """Seconds from ``since`` to the first frame of ``screen`` written after it."""
    return next(t for t, s in frames if s is screen and t >= since) - since


def bare_app_class():
    """A Textual app with seven screens of one ``Static`` each, modes bound to keys 1–7 and ``q``
    to quit: what a switch and a quit cost with nothing of bestie in them."""
    from textual.app import App
    from textual.binding import Binding
    from textual.screen import Screen
    from textual.widgets import Footer, Static

    names = ["tiers", "pending", "context", "doctor", "cleanup", "messages", "health"]

    def screen_for(name: str):
        class Bare(Screen):
            def compose(self):
                yield Static(name)
                yield Footer()
        return Bare

    class BareApp(App):
        MODES = {name: screen_for(name) for name in names}
        BINDINGS = [Binding(str(i + 1), f"switch_mode('{name}')") for i, name in enumerate(names)] + [
            Binding("q", "quit")]

        def on_mount(self) -> None:
            self.switch_mode("tiers")

    return BareApp


async def measure_bare(size: tuple[int, int]) -> dict[str, float]:
    """The baseline: first switch to each of the bare app's screens and its quit; seconds."""
    out: dict[str, float] = {}
    frame_times: dict[str, float] = {}
    frames, original_display = spy_frames()
    app = bare_app_class()()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for key, name in (("2", "pending"), ("3", "context"), ("4", "doctor"), ("5", "cleanup"),
                          ("6", "messages"), ("7", "health"), ("1", "tiers")):
            pressed = time.perf_counter()
            out[f"switch to {name}"] = await switch(app, pilot, key)
            frame_times[name] = first_frame(frames, app.screen, pressed)
        pressed = time.perf_counter()
        await pilot.press("q")
        while app.is_running:
            await pilot.pause(0.002)
    out["quit"] = time.perf_counter() - pressed
    out.update({f"first frame of {name}": t for name, t in frame_times.items()})
    App._display = original_display
    return out


def demo_table(repeat: int, size: tuple[int, int], as_json: bool) -> dict:
    """Measure every view on a fresh demo database and the bare baseline; print a Markdown table
    (or return the figures for ``--json``)."""
    from bestie_tui.cli.demo import ensure_demo_db

    with tempfile.TemporaryDirectory() as tmp:
        path = ensure_demo_db(Path(tmp) / "demo.db", reset=True)
        runs = [asyncio.run(measure_views(path, size)) for _ in range(repeat)]
    bare = [asyncio.run(measure_bare(size)) for _ in range(repeat)]
    rows = {}
    for key in runs[0]:
        rows[key] = {"bestie": statistics.median(r[key] for r in runs),
                     "bare textual": statistics.median(b[key] for b in bare) if key in bare[0] else None,
                     "target": 0.3 if key.startswith(("switch", "first frame of")) else 0.5 if key == "quit" else
                     (1.0 if key in ("first paint", "context first pack") else 0.3)}
    if not as_json:
        print(f"Demo database ({size[0]}x{size[1]}); seconds, median of {repeat}; "
              "the bare app is Textual with empty screens (same run)")
        print()
        print("| measure | bestie | bare textual | target | within |")
        print("|---|---:|---:|---:|:---:|")
        for key, row in rows.items():
            base = "" if row["bare textual"] is None else f"{row['bare textual']:.3f}"
            ok = "yes" if row["bestie"] <= row["target"] else "no"
            print(f"| {key} | {row['bestie']:.3f} | {base} | ≤ {row['target']:.1f} | {ok} |", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="msc_personas_all.json (read by path)")
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated memory counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size; the median is reported")
    parser.add_argument("--width", type=int, default=120)
    parser.add_argument("--height", type=int, default=40)
    parser.add_argument("--views-sizes", default="100000", help="sizes for the views table ('' to skip)")
    parser.add_argument("--demo", action="store_true",
                        help="only the demo-database table (every view, beside a bare Textual app)")
    parser.add_argument("--json", action="store_true", help="with --demo: print the figures as JSON")
    args = parser.parse_args()
    if args.demo:
        rows = demo_table(args.repeat, (args.width, args.height), args.json)
        if args.json:
            print(json.dumps(rows, indent=2))
        return

    rng = random.Random(7)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.data.exists():
        facts, source = persona_facts(args.data), f"persona facts from {args.data.name}"
        rng.shuffle(facts)
    else:
        facts, source = [], "synthetic text"
    if len(facts) < max(sizes) * 1.1:
        facts += synthetic_facts(max(sizes) * 2, rng)
    views_sizes = [int(v) for v in args.views_sizes.split(",") if v.strip()]

    print(f"text: {source}; terminal {args.width}x{args.height}; median of {args.repeat} runs")
    print()
    print("| memories | build db (s) | first paint of Tiers list (s) | w → Working painted (s) "
          "| Working rows | G → last row painted (s) | filter keystroke → painted (s) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"bench-{n}.db"
            t0 = time.perf_counter()
            written = build_database(path, facts, n, rng)
            build = time.perf_counter() - t0
            runs = [asyncio.run(measure(path, (args.width, args.height))) for _ in range(args.repeat)]
            first, switch, last, filtered = (statistics.median(r[i] for r in runs) for i in range(4))
            print(f"| {written:,} | {build:.1f} | {first:.3f} | {switch:.3f} | {runs[0][4]:,} | {last:.3f} "
                  f"| {filtered:.3f} |", flush=True)
        for n in views_sizes:
            path = Path(tmp) / f"views-{n}.db"
            t0 = time.perf_counter()
            bulk_database(path, facts, n, rng)
            build = time.perf_counter() - t0
            runs = [asyncio.run(measure_views(path, (args.width, args.height))) for _ in range(args.repeat)]
            print()
            print(f"Views at {n:,} memories (bulk-built and indexed in {build:.1f} s); seconds, median of {args.repeat}; "
                  "targets from issue 13")
            print()
            print("| measure | seconds | target |")
            print("|---|---:|---:|")
            targets = {"first paint": 1.0, "context first pack": 1.0, "pending similar (median of 5)": 0.3, "quit": 0.5}
            for key in runs[0]:
                value = statistics.median(r[key] for r in runs)
                target = targets.get(key, 0.3 if key.startswith("switch") else None)
                print(f"| {key} | {value:.3f} | {'≤ ' + format(target, '.1f') if target else ''} |", flush=True)


if __name__ == "__main__":
    main()
