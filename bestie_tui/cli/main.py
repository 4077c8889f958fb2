"""Entry point: ``bestie [--db PATH] memory|context|tui …``.

Exit codes: 0 ok, 1 failure (a ``BestieError``: unknown id, bad value, refused write, bad file),
2 usage (click's own errors: unknown option, missing argument).
"""

from __future__ import annotations

import click

from .. import DISTRIBUTION
from ..store.doc_index import set_reporting
from .common import DB_HELP, USER_HELP, AppContext, BestieGroup, db_option

#: A non-terminal stderr gets a progress line at most this often (seconds), and the last one.
NOTICE_EVERY = 5.0
_said: dict[str, float] = {}


def index_notice(what: str, done: int, total: int) -> None:
    """``building the message index (n of N)`` on stderr while a command builds a search index it
    needs (``doc_index.reporting``): one line redrawn on a terminal; elsewhere the first line, one
    every ``NOTICE_EVERY`` seconds and the last."""
    import sys
    import time

    line = f"building the {what} ({done:,} of {total:,})"
    if sys.stderr.isatty():
        click.echo(f"\r{line}", err=True, nl=done >= total)
        return
    now = time.monotonic()
    if done >= total or done == 0 or what not in _said or now - _said[what] >= NOTICE_EVERY:
        _said[what] = now
        click.echo(line, err=True)


@click.group(cls=BestieGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", type=click.Path(dir_okay=False), envvar="BESTIE_DB",
              help=DB_HELP)
@click.option("--user", help=USER_HELP)
@click.version_option(package_name=DISTRIBUTION, prog_name="bestie")
@click.pass_context
def cli(ctx: click.Context, db: str | None, user: str | None) -> None:
    """Bestie's local-first memory: review, search and curate what the assistant remembers."""
    from bestie_tui.store.limits import check_user_id

    check_user_id(user, "--user")  # 1 to 200 printable characters, refused before anything opens
    set_reporting(index_notice)  # a command that has to build a large search index says so
    _said.clear()
    typed = ctx.get_parameter_source("db") is click.core.ParameterSource.COMMANDLINE
    ctx.obj = AppContext(db, user, db_typed=typed)
    ctx.call_on_close(ctx.obj.close)  # one store per command, closed when the command ends


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
    set_reporting(None)  # no stderr lines over the console's screen
    store = app.store()
    from ..tui.app import BestieApp, leave

    BestieApp(store).run()
    app.close()  # the store closed: every write of the console is committed
    leave()


# Each command module adds its commands to the ``memory`` group (``common``) as it is imported.
from . import (  # noqa: E402, F401
    agent_cmds,
    data_cmds,
    doctor_cmds,
    maintenance_cmds,
    memory_cmds,  # noqa: E402, F401  (first: its commands lead the help)
    resolve_cmds,
    review_cmds,
    scoring_cmds,
)
from .agent_cmds import mcp_cmd  # noqa: E402
from .common import memory  # noqa: E402
from .context_cmds import context  # noqa: E402

cli.add_command(memory)
cli.add_command(context)
cli.add_command(mcp_cmd)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="bestie")


if __name__ == "__main__":
    main()
