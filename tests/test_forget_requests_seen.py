"""A forget the assistant asked for is seen where the owner looks: `status`, the digest and the
console's status line; nothing is forgotten until the owner confirms (issue 30, item 11)."""

from __future__ import annotations

from click.testing import CliRunner

from bestie_tui.agent.forget_requests import request_forget
from bestie_tui.cli.main import cli
from bestie_tui.maintenance import digest as dg
from bestie_tui.tui.app import BestieApp


def _asked(store):
    kept = store.add("note", "The spare key is under the blue flowerpot.")
    asked = store.add("note", "Old gym locker combination is gone, locker returned.")
    request_forget(store, asked.id, "the owner said it no longer matters", user=None)
    return kept, asked


def test_status_counts_the_requests_and_names_the_command(store, db_path):
    _asked(store)
    out = CliRunner().invoke(cli, ["--db", str(db_path), "memory", "status"])
    assert out.exit_code == 0, out.output
    assert "forget requests" in out.output and "1 from the assistant (bestie memory forget-requests)" in out.output
    assert store.status().forget_requests == 1


def test_status_says_nothing_of_requests_when_there_are_none(store, db_path):
    store.add("note", "The spare key is under the blue flowerpot.")
    out = CliRunner().invoke(cli, ["--db", str(db_path), "memory", "status"])
    assert out.exit_code == 0 and "forget requests" not in out.output


def test_the_digest_lists_the_request_with_its_fix_commands_and_forgets_nothing(store):
    kept, asked = _asked(store)
    text = dg.build_digest(store).render_text()
    assert "Forget requests from the assistant (1)" in text
    assert f"forget-requests confirm {asked.id}" in text and f"forget-requests dismiss {asked.id}" in text
    assert f"#{asked.id}" in text and f"#{kept.id}" not in text.split("Forget requests")[1].split("\n\n")[0]
    assert store.get(asked.id).status == "approved"  # asking changes no memory


async def test_the_console_status_line_says_a_forget_was_asked(store):
    _asked(store)
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(200, 30)) as pilot:
        await pilot.pause()
        assert "forget asked 1" in str(app.screen.query_one("#status-line").render())
