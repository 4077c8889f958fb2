"""Entry point: ``bestie [--db PATH] memory|context|tui …``.

Exit codes: 0 ok, 1 failure (a ``BestieError``: unknown id, bad value, refused write, bad file),
2 usage (click's own errors: unknown option, missing argument).
"""

from __future__ import annotations

import click

from .. import __version__
from .common import AppContext, BestieGroup, db_option


@click.group(cls=BestieGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", type=click.Path(dir_okay=False), envvar="BESTIE_DB",
              help="SQLite database file (default: BESTIE_DB or the user data dir's memory.db).")
@click.version_option(__version__, prog_name="bestie")
@click.pass_context
def cli(ctx: click.Context, db: str | None) -> None:
    """Bestie's local-first memory: review, search and curate what the assistant remembers."""
    ctx.obj = AppContext(db)


@cli.command()
@click.option("--demo", is_flag=True, help="Open a separate demo database filled with sample memories.")
@click.option("--reset-demo", is_flag=True, help="Rebuild the demo database from scratch first.")
@db_option
@click.pass_obj
def tui(app: AppContext, demo: bool, reset_demo: bool) -> None:
    """Open the memory console (keyboard-driven review of tiers and pending proposals)."""
    if demo:
        from bestie_tui.cli.demo import ensure_demo_db
        from ..paths import demo_db_path

        path = ensure_demo_db(demo_db_path(), reset=reset_demo)
        app.db = str(path)
    store = app.store()
    from ..tui.app import BestieApp

    BestieApp(store).run()


#: (module under bestie_tui.cli, click command name) of every top-level command group.
COMMAND_MODULES = [
    ("memory_cmds", "memory"),
    ("context_cmds", "context"),
]


def _register() -> None:
    from importlib import import_module

    for module, name in COMMAND_MODULES:
        cli.add_command(getattr(import_module(f"{__package__}.{module}"), name))


_register()


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="bestie")


if __name__ == "__main__":
    main()
