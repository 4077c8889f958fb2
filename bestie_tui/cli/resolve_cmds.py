"""``bestie memory resolve OLDER NEWER``: the owner's answer to a related pair the doctor reports
(``hygiene.resolve``): keep both, merge, the newer replaces the older, or keep the older."""

from __future__ import annotations

import click

from bestie_tui.text.words import printable

from .common import MEMORY_ID, AppContext, json_option, memory, pass_app
from .render import emit_json


@memory.command()
@click.argument("older_id", type=MEMORY_ID, metavar="OLDER")
@click.argument("newer_id", type=MEMORY_ID, metavar="NEWER")
@click.option("--keep-both", "keep_both", is_flag=True,
              help="Keep both as they are; the doctor does not ask about this pair again.")
@click.option("--merge", is_flag=True, help="Merge the two into one record (cleanup's merge).")
@click.option("--newer", is_flag=True, help="The newer replaces the older (the older is superseded).")
@click.option("--older", is_flag=True, help="Keep the older; the newer is superseded by it.")
@click.option("--text", help="With --merge: the merged text (default: the more complete of the two).")
@json_option
@pass_app
def resolve(app: AppContext, older_id: int, newer_id: int, keep_both: bool, merge: bool, newer: bool,
            older: bool, text: str | None, as_json: bool) -> None:
    """Resolve a related pair of one user's memories with one answer (undo reverts it).

    OLDER and NEWER are the pair as the doctor shows it. Exactly one of --keep-both, --merge,
    --newer, --older."""
    chosen = [name for name, on in (("keep_both", keep_both), ("merge", merge), ("newer", newer),
                                    ("older", older)) if on]
    if len(chosen) != 1:
        raise click.UsageError("give exactly one of --keep-both, --merge, --newer, --older")
    if text is not None and chosen != ["merge"]:
        raise click.UsageError("--text goes with --merge only")
    from bestie_tui.hygiene.resolve import resolve_pair  # hygiene loads when a command needs it (fast startup)

    result = resolve_pair(app.store(), older_id, newer_id, chosen[0], text=text)
    if as_json:
        emit_json(result.to_dict())
    else:
        click.echo(printable(result.message))
