"""Every command spelled in the seed design note runs, in the seed's own order, on one database."""

from __future__ import annotations

import shlex

from click.testing import CliRunner

from bestie_tui.cli.main import cli

SEED_COMMANDS = """
bestie memory status
bestie memory pause
bestie memory resume
bestie memory list
bestie memory list --scope core
bestie memory tiers
bestie memory summary
bestie memory search concise
bestie memory add communication_preference "User prefers concise replies."
bestie memory add identity "User lives in Hà Nội."
bestie memory inspect 1
bestie memory edit 1 "Updated memory text."
bestie memory pin 1
bestie memory unpin 1
bestie memory move 1 --scope project
bestie memory supersede 1 2
bestie memory forget 1
bestie memory messages --limit 5 --role user
bestie memory messages search project --limit 5 --role assistant
bestie memory export
bestie memory pending
bestie memory pending search hanoi --limit 5
bestie memory approve 3
bestie memory reject 4
bestie memory reject-all --yes
bestie memory clear --yes
"""


def test_seed_commands_all_succeed(db_path):
    runner = CliRunner()
    from bestie_tui.store.memory_store import MemoryStore

    store = MemoryStore(db_path)
    store.log_message("user", "Can you check the project plan?")
    store.log_message("assistant", "The project plan is on track.")
    store.close()
    proposals_made = False
    for line in SEED_COMMANDS.strip().splitlines():
        args = shlex.split(line)[1:]
        if args[:2] == ["memory", "pending"] and not proposals_made:
            for text in ("Trip to Hanoi next month", "Likes bún chả", "Prefers trains"):
                runner.invoke(cli, ["--db", str(db_path), "memory", "propose", "note", text])
            proposals_made = True
        result = runner.invoke(cli, ["--db", str(db_path), *args])
        assert result.exit_code == 0, f"{line}\n{result.output}"
        if line.endswith("pending search hanoi --limit 5"):
            assert "Trip to Hanoi next month" in result.output
        if line.endswith("messages search project --limit 5 --role assistant"):
            assert "The project plan is on track." in result.output
            assert "Can you check" not in result.output


def test_the_demo_has_a_few_hundred_messages_over_several_sessions(tmp_path, clock):
    from conftest import FROZEN_NOW

    from bestie_tui.cli.demo import populate
    from bestie_tui.store.memory_store import MemoryStore

    demo = MemoryStore(tmp_path / "demo.db", clock=clock)
    with demo.bound():
        populate(demo, now=FROZEN_NOW)
        messages = demo.messages(limit=10_000)
        assert len(messages) >= 200
        assert len({m.session for m in messages}) >= 5
        assert all(m.created_at <= FROZEN_NOW for m in messages)
    demo.close()
