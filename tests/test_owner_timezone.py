"""The owner's calendar: ``owner.timezone`` (an IANA name, by default the system's zone) governs every
TTL word and named day, and the times the CLI and the console show. The database keeps naive UTC.
Clocks are frozen in Hà Nội / Hồ Chí Minh City (UTC+7, no DST) and Los Angeles (PST/PDT) around
midnight and around the DST changes."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bestie_tui.errors import InvalidValueError
from bestie_tui.store.memory_store import MemoryStore

HCM = "Asia/Ho_Chi_Minh"
LA = "America/Los_Angeles"


def at(tmp_path, zone: str, utc_now: datetime) -> MemoryStore:
    store = MemoryStore(tmp_path / f"{zone.replace('/', '_')}-{utc_now:%Y%m%d%H%M}.db", clock=lambda: utc_now)
    store.set_setting("owner.timezone", zone)
    return store


def expiry(store: MemoryStore, ttl: str) -> datetime:
    memory = store.add("note", f"plans number {store.count() + 1}: {ttl}", ttl=ttl)
    stored = sqlite3.connect(store.path).execute("SELECT expires_at FROM memory WHERE id = ?", (memory.id,)).fetchone()[0]
    assert datetime.fromisoformat(stored) == memory.expires_at  # naive UTC on disk
    return memory.expires_at


@pytest.mark.parametrize("zone, utc_now, ttl, expected_utc", [
    # Hồ Chí Minh City, 00:10 on Tuesday 1 Dec (Monday 17:10 UTC): "tomorrow" is Wednesday 2 Dec there.
    (HCM, datetime(2026, 11, 30, 17, 10), "tomorrow", datetime(2026, 12, 2, 16, 59, 59)),
    (HCM, datetime(2026, 11, 30, 17, 10), "tonight", datetime(2026, 12, 1, 16, 59, 59)),
    (HCM, datetime(2026, 11, 30, 17, 10), "end of day", datetime(2026, 12, 1, 16, 59, 59)),
    (HCM, datetime(2026, 11, 30, 17, 10), "until friday", datetime(2026, 12, 4, 16, 59, 59)),
    # …and 23:50 on Monday 30 Nov there (16:50 UTC): "tomorrow" is Tuesday 1 Dec.
    (HCM, datetime(2026, 11, 30, 16, 50), "tomorrow", datetime(2026, 12, 1, 16, 59, 59)),
    (HCM, datetime(2026, 11, 30, 16, 50), "2026-12-01", datetime(2026, 12, 1, 16, 59, 59)),
    # Los Angeles, Friday 27 Nov 19:00 PST (Saturday 03:00 UTC): "until friday" is tonight, not next week.
    (LA, datetime(2026, 11, 28, 3, 0), "until friday", datetime(2026, 11, 28, 7, 59, 59)),
    (LA, datetime(2026, 11, 28, 3, 0), "tomorrow", datetime(2026, 11, 29, 7, 59, 59)),
    (LA, datetime(2026, 11, 28, 3, 0), "next friday", datetime(2026, 12, 5, 7, 59, 59)),
    (LA, datetime(2026, 11, 28, 3, 0), "2026-12-24T18:00", datetime(2026, 12, 25, 2, 0)),
    # Friday 23:30 PST, half an hour before midnight: "eod" is still Friday.
    (LA, datetime(2026, 11, 28, 7, 30), "eod", datetime(2026, 11, 28, 7, 59, 59)),
    # Spring forward, Sunday 14 Mar 2027 02:00 PST → 03:00 PDT. Saturday 09:00 PST = 17:00 UTC.
    (LA, datetime(2027, 3, 13, 17, 0), "1d", datetime(2027, 3, 14, 16, 0)),  # 09:00 PDT: a calendar day
    (LA, datetime(2027, 3, 13, 17, 0), "24h", datetime(2027, 3, 14, 17, 0)),  # elapsed hours: 10:00 PDT
    (LA, datetime(2027, 3, 13, 17, 0), "tomorrow", datetime(2027, 3, 15, 6, 59, 59)),  # 23:59:59 PDT
    (LA, datetime(2027, 3, 13, 17, 0), "2027-03-14T02:30", datetime(2027, 3, 14, 10, 30)),  # in the gap: 03:30 PDT
    # Fall back, Sunday 1 Nov 2026 02:00 PDT → 01:00 PST. Saturday 31 Oct 12:00 PDT = 19:00 UTC.
    (LA, datetime(2026, 10, 31, 19, 0), "until sunday", datetime(2026, 11, 2, 7, 59, 59)),  # 23:59:59 PST
    (LA, datetime(2026, 10, 31, 19, 0), "1w", datetime(2026, 11, 7, 20, 0)),  # Saturday 12:00 PST
])
def test_ttl_words_follow_the_owners_calendar(tmp_path, zone, utc_now, ttl, expected_utc):
    store = at(tmp_path, zone, utc_now)
    assert expiry(store, ttl) == expected_utc


def test_the_utc_calendar_was_a_week_late_and_17_hours_early(tmp_path):
    """The two cases from the issue, read on the UTC calendar, against the owner's."""
    friday_evening = at(tmp_path, "UTC", datetime(2026, 11, 28, 3, 0))
    assert expiry(friday_evening, "until friday") == datetime(2026, 12, 4, 23, 59, 59)  # a week late in LA
    friday_evening.set_setting("owner.timezone", LA)
    assert expiry(friday_evening, "until friday") == datetime(2026, 11, 28, 7, 59, 59)
    past_midnight = at(tmp_path, "UTC", datetime(2026, 11, 30, 17, 10))
    assert expiry(past_midnight, "tomorrow") == datetime(2026, 12, 1, 23, 59, 59)
    past_midnight.set_setting("owner.timezone", HCM)
    assert expiry(past_midnight, "tomorrow") == datetime(2026, 12, 2, 16, 59, 59)


def test_set_ttl_and_the_assistants_proposals_use_the_same_calendar(tmp_path):
    store = at(tmp_path, HCM, datetime(2026, 11, 30, 17, 10))
    proposal = store.propose("Meeting notes for the sprint", "note", ttl="tomorrow").memory
    assert proposal.expires_at == datetime(2026, 12, 2, 16, 59, 59)
    assert store.set_ttl(proposal.id, "tonight").expires_at == datetime(2026, 12, 1, 16, 59, 59)


def test_default_is_the_systems_zone_and_bad_names_are_refused(tmp_path, monkeypatch):
    store = MemoryStore(tmp_path / "m.db", clock=lambda: datetime(2026, 11, 30, 17, 10))
    monkeypatch.setenv("TZ", HCM)
    assert store.get_setting("owner.timezone") is None and store.owner_zone.key == HCM
    assert store.add("note", "Call the bank", ttl="tomorrow").expires_at == datetime(2026, 12, 2, 16, 59, 59)
    monkeypatch.setenv("TZ", LA)
    assert store.owner_zone.key == LA
    for bad in ("Mars/Olympus_Mons", "../../etc/passwd", "", 7):
        with pytest.raises(InvalidValueError):
            store.set_setting("owner.timezone", bad)
    store.set_setting("owner.timezone", HCM)
    assert store.owner_zone.key == HCM
    store.set_setting("owner.timezone", "system")
    assert store.get_setting("owner.timezone") is None and store.owner_zone.key == LA


def test_cli_sets_the_zone_and_shows_times_on_the_owners_clock(run, db_path):
    store = MemoryStore(db_path, clock=lambda: datetime(2026, 11, 30, 17, 10))
    store.add("note", "Dentist appointment")
    store.close()
    result = run("memory", "config", "owner.timezone", "Mars/Olympus_Mons")
    assert result.exit_code == 1 and "unknown time zone" in result.output and len(result.output.strip().splitlines()) == 1
    assert run("memory", "config", "owner.timezone", HCM).exit_code == 0
    assert f'"{HCM}"' in run("memory", "config", "owner.timezone").output
    inspect = run("memory", "inspect", "1").output
    assert "created_at        2026-12-01 00:10:00 +07" in inspect  # 17:10 UTC, shown in Hồ Chí Minh City
    assert "2026-12-01 00:10:00 +07  add" in inspect  # the history line too
    assert "2026-11-30T17:10:00" in run("memory", "inspect", "1", "--json").output  # JSON stays UTC
    expire = run("memory", "expire", "1", "until friday")  # the CLI runs on the real clock
    today = datetime.now(ZoneInfo(HCM)).date()
    friday = today + timedelta(days=(4 - today.weekday()) % 7)  # today when it is Friday in Hồ Chí Minh City
    assert expire.output.strip() == f"#1 expires {friday.isoformat()} 23:59 +07"


async def test_console_shows_times_on_the_owners_clock(tmp_path):
    from bestie_tui.tui.app import BestieApp

    store = at(tmp_path, LA, datetime(2026, 11, 28, 3, 0))
    store.add("note", "Pick up the parcel", ttl="until friday")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("w")
        await pilot.pause()
        text = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
    assert "2026-11-27 19:00 PST" in text  # created, Friday evening in Los Angeles
    assert "2026-11-27 23:59 PST" in text  # expires at the end of that Friday
