"""What every command module shares: the app context (chosen database, lazily opened store), the
group class that maps core errors to exit code 1, ``--db`` on groups, and the memory-id argument type.
Kept apart from ``main`` so command modules never import the entry point (no import cycle with
``python -m bestie_tui``)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from bestie_tui.cli.render import paint
from bestie_tui.errors import BestieError
from bestie_tui.store.models import LAYERS, SCOPE_DEFAULT_LAYER, SCOPES


class AppContext:
    """What every command receives as ``ctx.obj``: the chosen database and a lazily opened store."""

    def __init__(self, db: str | None, user: str | None = None, *, db_typed: bool = False):
        self.db = db
        #: Whether ``db`` was typed on the command line (not ``BESTIE_DB``): a second ``--db`` after
        #: the command must then name the same database (``db_option``).
        self.db_typed = db_typed
        #: The user the command is bound to (``bestie --user U …``): its store reaches only U's rows.
        self.user = user
        self._store = None

    def db_path(self) -> Path | str:
        """The SQLite file, or the PostgreSQL URL as given (``--db postgresql://…``)."""
        from ..paths import default_db_path
        from ..store.db import is_url

        if self.db and is_url(self.db):
            return self.db
        return Path(self.db).expanduser() if self.db else default_db_path()

    def db_exists(self) -> bool:
        """Whether the chosen database is there to read (a server is, until opening it says otherwise)."""
        where = self.db_path()
        return isinstance(where, str) or where.exists()

    def store(self):
        if self._store is None:
            from bestie_tui.store.memory_store import MemoryStore

            # A --db typed by the user must be in an existing directory: a typo should not start a
            # new empty database somewhere; the default data dir is created on first use.
            self._store = MemoryStore(self.db_path(), create_dirs=not self.db, user=self.user)
        return self._store

    def close(self) -> None:
        """Close the store if the command opened one; show the lines saying search by meaning fell
        back to words (``semantic.loader.take_notes``), if the command searched at all."""
        loader = sys.modules.get("bestie_tui.semantic.loader")
        for line in loader.take_notes() if loader is not None else ():
            click.echo(line, err=True)
        if self._store is not None:
            self._store.close()
            self._store = None


def owner_user(store) -> str:
    """The ``owner.user`` setting: a request's user when its ``--user`` is left out. Raises a click
    usage error (exit 2) when the setting is not set."""
    user = store.get_setting("owner.user")
    if user is None:
        raise click.UsageError("Missing option '--user' (or set it once: bestie memory config owner.user NAME)")
    return user


def note_unknown_user(store, user: str | None) -> bool:
    """Say on stderr, in one line, when the database holds no memory and no message of ``user``:
    a mistyped user id would otherwise read as a user with nothing that matches (the exit code stays
    0: it is no failure). Returns whether it said so."""
    if user is None or store.knows_user(user):
        return False
    from bestie_tui.text.words import printable

    click.echo(f"note: no memories or messages for user {printable(user)!r} yet (bestie memory users lists "
               "the users)", err=True)
    return True


#: A usage error shows at most this many characters of any one argument it quotes.
USAGE_ARG_CHARS = 24


#: A value an error quotes as ``repr`` writes it: ``'…'`` opening at the start, after a space or an
#: opening bracket, so the closing quote of one value and the opening quote of the next (``user
#: 'alice' … user 'bob'``) are never read as one value.
QUOTED = r"(?<![^\s(\[=:,])'[^'\n]*'"


def one_line(message: str) -> str:
    """``message`` safe to print as one line: a secret in what it quotes redacted (``[redacted: …]``,
    the write gate's own detector), control, line-separator and bidi characters shown as
    visible escapes (``\\n``, ``\\x1b``, ``\\u202e``), so an error can neither run an escape sequence
    (an OSC 52 writes the clipboard) nor end its own line."""
    import re

    from bestie_tui.store.gate.secrets import redact
    from bestie_tui.text.words import printable

    # What an error quotes ('…', as repr writes a value) came from the user and may be a token: any
    # secret there is redacted. The error's own words are left alone ("pass --format" is no password).
    message = re.sub(QUOTED, lambda m: redact(m.group())[0], message)
    text = printable(message)
    return text.replace("\n", "\\n").replace("\t", "\\t").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def shortened(message: str, limit: int = USAGE_ARG_CHARS) -> str:
    """``one_line(message)`` with every run of non-space characters longer than ``limit`` cut to
    its first ``limit // 2`` characters and ``…``: what a usage error quotes from an argument (a
    memory text mistaken for an option may hold a private key) is never echoed whole."""
    import re

    text = re.sub(QUOTED, lambda m: m.group() if len(m.group()) <= limit + 2 else m.group()[: limit // 2 + 1] + "…'",
                  one_line(message))
    return re.sub(rf"\S{{{limit + 1},}}", lambda m: m.group()[: limit // 2] + "…", text)


def without_secret_args(message: str, args: list[str] | tuple[str, ...]) -> str:
    """``message`` with every command-line argument that is part of a secret shown as
    ``[redacted: KIND]``. The arguments are read together, as the gate reads a text (``password is``
    and ``Hunter2…`` typed without quotes are three arguments and one password); an argument any part
    of which lies in a secret the gate finds is never printed, whatever the error says about it."""
    from bestie_tui.store.gate.secrets import find_secrets

    words = [a for a in args if isinstance(a, str) and a.strip()]
    if not words:
        return message
    joined, spans, pos = "", [], 0
    for word in words:
        spans.append((pos, pos + len(word), word))
        joined += word + " "
        pos += len(word) + 1
    import unicodedata

    if not unicodedata.is_normalized("NFC", joined):
        return message  # offsets would not line up: the quoted values are still redacted one by one
    found = find_secrets(joined)
    secret = {word: m.name for m in found for start, end, word in spans
              if start < m.end and m.start < end and any(c.isalnum() for c in word)}
    for word in sorted(secret, key=len, reverse=True):
        message = message.replace(word, f"[redacted: {secret[word]}]")
    return message


def _clean_usage(exc: click.ClickException, args: list[str] | tuple[str, ...] = ()) -> None:
    """Shorten and escape, in place, what a click error quotes from the command line; an argument
    that is part of a secret (``without_secret_args``) is not shown at all."""
    if not getattr(exc, "_bestie_clean", False):
        hint = ""
        name = getattr(exc, "option_name", "") or ""
        if isinstance(exc, click.NoSuchOption) and (len(name) > USAGE_ARG_CHARS or not name.replace("-", "").isalnum()):
            hint = " (a text that starts with '-' goes after '--', e.g. bestie memory add fact -- TEXT)"
        message = without_secret_args(exc.message, args or getattr(exc, "_bestie_args", ()))
        if message != exc.message and "unexpected extra argument" in message:
            hint += " (a memory text of several words goes in quotes)"
        exc.message = shortened(message) + hint
        exc._bestie_clean = True  # type: ignore[attr-defined]


def _all_text_encodable(values) -> bool:
    """False when a string among ``values`` (or inside a tuple of them) holds lone surrogates: bytes
    that were not UTF-8 on the command line."""
    for value in values:
        items = value if isinstance(value, tuple | list) else (value,)
        for item in items:
            if isinstance(item, str):
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return False
    return True


class UserBoundCommand(click.Command):
    """A command that follows the user the whole command line is bound to (``bestie --user U …``):
    its own ``--user`` means U when it is not typed, and naming another user is a usage error.

    ``--db`` and ``--user`` are taken after the command as well as before it (``bestie memory list
    --db x.db``): a command that has no option of that name gets the group's (``db_option``,
    ``user_option``), hidden from nothing and shown in its ``--help``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        take_place_options(self)

    def invoke(self, ctx: click.Context):
        from bestie_tui.store.limits import user_id_problem

        problem = user_id_problem(ctx.params.get("user"), "--user")
        if problem:  # before anything is opened: 1 to 200 printable characters, never echoed
            raise click.ClickException(problem)
        app = ctx.find_object(AppContext)
        if app is not None and app.user is not None and ctx.params.get("user") not in (None, app.user):
            raise click.UsageError(f"this command is bound to user {app.user!r} (--user before the "
                                   f"command); it cannot reach user {ctx.params['user']!r}", ctx)
        return super().invoke(ctx)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # bound to a user (``bestie --user U …``): the command's own --user means U unless typed
        app = ctx.find_object(AppContext)
        if (app is not None and app.user is not None and any(p.name == "user" for p in self.params)
                and not any(a == "--user" or a.startswith("--user=") for a in args)):
            args = ["--user", app.user, *args]
        return super().parse_args(ctx, args)


def take_place_options(command: click.Command) -> None:
    """Give ``command`` the group's ``--db`` and ``--user`` (``db_option``, ``user_option``) unless it
    has an option of that name of its own, so they are taken after the command as well as before it."""
    names = {p.name for p in command.params}
    if "db" not in names:
        db_option(command)
    if "user" not in names:
        user_option(command)


class BestieCommand(UserBoundCommand):
    """A command whose arguments are checked before it runs: one that is not valid UTF-8 is refused
    before anything is read or written (not half-way, after an access was recorded). A usage error
    keeps the command's arguments, so that what it prints leaves out any that make up a secret."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, list(args), parent=parent, **extra)
        except click.UsageError as exc:
            exc._bestie_args = tuple(args)
            raise

    def invoke(self, ctx: click.Context):
        if not _all_text_encodable(ctx.params.values()):
            raise click.ClickException("an argument is not valid UTF-8 text (check the terminal's encoding); "
                                       "nothing was changed")
        return super().invoke(ctx)


class BestieGroup(click.Group):
    """A group that turns core errors into a one-line message and exit code 1, and shows usage
    errors with the arguments they quote shortened and escaped (``shortened``). Its commands are
    ``BestieCommand``s and its subgroups ``BestieGroup``s."""

    command_class = BestieCommand
    group_class = type

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        take_place_options(self)  # ``bestie memory pending --db x.db``: a group run without a subcommand too

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.ClickException as exc:
            _clean_usage(exc, tuple(args))
            raise

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except BestieError as exc:
            raise click.ClickException(one_line(str(exc))) from None
        except click.UsageError as exc:
            _clean_usage(exc)
            raise
        except click.ClickException as exc:
            exc.message = one_line(exc.message)
            raise
        except UnicodeEncodeError:
            # An argument with bytes that are not UTF-8 reaches Python as lone surrogates, which
            # SQLite and the terminal cannot take: say so instead of a traceback. Nothing was written.
            raise click.ClickException("an argument is not valid UTF-8 text (check the terminal's encoding); "
                                       "nothing was changed") from None


DB_HELP = ("SQLite database file, or a postgresql://user@host/dbname URL "
           "(default: BESTIE_DB or the user data dir's memory.db).")


USER_HELP = ("Bind the command to this user: it reads, writes, exports and erases only that user's "
             "memories, messages and history (a hosted database with many users).")


def user_option(func):
    """``--user U`` on a group: the command's store is bound to U (``MemoryStore(…, user=U)``)."""

    def remember(ctx: click.Context, _param, value):
        from bestie_tui.store.limits import user_id_problem

        problem = user_id_problem(value, "--user")
        if problem:
            raise click.ClickException(problem)
        if value is not None:
            app = ctx.ensure_object(AppContext)
            if app.user is not None and app.user != value:  # bound before the command to another
                raise click.UsageError(f"this command is bound to user {app.user!r} (--user before the "
                                       f"command); it cannot reach user {value!r}", ctx)
            app.user = value
        return value

    return click.option("--user", expose_value=False, callback=remember, is_eager=True, help=USER_HELP)(func)


def db_option(func):
    """``--db PATH`` on a group: overrides the root option, ``BESTIE_DB`` and the default."""

    def remember(ctx: click.Context, _param, value):
        if value:
            app = ctx.ensure_object(AppContext)
            if app.db_typed and app.db and not _same_db(app.db, value):
                exc = click.UsageError(f"--db is given twice, naming {_shown_db(app.db)} and {_shown_db(value)}; "
                                       "give one", ctx)
                exc.message = one_line(exc.message)
                exc._bestie_clean = True  # type: ignore[attr-defined]  (paths shown whole: they name the clash)
                raise exc
            app.db, app.db_typed = value, True
        return value

    return click.option(
        "--db", type=click.Path(dir_okay=False), expose_value=False, callback=remember, is_eager=True,
        help=DB_HELP,
    )(func)


def _same_db(first: str, second: str) -> bool:
    """Whether two ``--db`` values name one database: the same URL, or file paths that are the
    same once ``~`` and the working directory are filled in (no file is looked at)."""
    import os

    from bestie_tui.store.db import is_url

    if is_url(first) or is_url(second):
        return first == second
    return os.path.abspath(os.path.expanduser(first)) == os.path.abspath(os.path.expanduser(second))


def _shown_db(value: str) -> str:
    """A ``--db`` value as an error may quote it: a URL's password masked."""
    from bestie_tui.store.db import display_location

    try:
        return repr(display_location(value))
    except BestieError:
        return "a malformed database URL"


class MemoryIdType(click.ParamType):
    """A memory id: a whole number ≥ 1, with a plain-words error otherwise."""

    name = "id"

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            try:
                number = int(str(value).strip().lstrip("#"))
            except ValueError:
                self.fail(f"a memory id is a whole number such as 12, not {value!r}", param, ctx)
        if number < 1:
            self.fail(f"a memory id is 1 or more, not {number}", param, ctx)
        if number >= 2**63:
            self.fail(f"{number} is larger than any memory id can be", param, ctx)
        return number


MEMORY_ID = MemoryIdType()


class ScopeType(click.Choice):
    """A scope (``core``, ``project``, ``session``); a tier's name given instead (``working``) is
    answered with the scopes that land there, since the layer follows the scope."""

    def __init__(self) -> None:
        super().__init__(SCOPES)

    def convert(self, value, param, ctx):
        if isinstance(value, str) and value.lower() in LAYERS and value.lower() not in SCOPES:
            into = [s for s, layer in SCOPE_DEFAULT_LAYER.items() if layer == value.lower()]
            there = f": --scope {' or '.join(into)} lands a memory in {value.lower()}" if into else ""
            self.fail(f"{value!r} is a tier, not a scope{there} (scopes: {', '.join(SCOPES)})", param, ctx)
        return super().convert(value, param, ctx)


SCOPE = ScopeType()


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
pass_app = click.make_pass_decorator(AppContext)


def memory_id_arg(name: str = "memory_id"):
    return click.argument(name, type=MEMORY_ID, metavar=name.upper().replace("MEMORY_", ""))


@click.group(cls=BestieGroup)
@db_option
@user_option
def memory() -> None:
    """Inspect and curate long-term memories."""


def echo_diff(text: str) -> None:
    """A plan diff, its ``+`` lines green and ``-`` lines red, headers bold (see ``paint``)."""
    for line in text.splitlines():
        body = line.lstrip()
        if body.startswith("+ "):
            click.echo(paint(line, fg="green"))
        elif body.startswith("- "):
            click.echo(paint(line, fg="red"))
        elif body[:1].isdigit() and ". [" in body[:8]:
            click.echo(paint(line, bold=True))
        else:
            click.echo(line)


class TextToolGroup(BestieGroup):
    """``bestie context``: tools over conversation text that record nothing, so text that is not
    valid UTF-8 (lone surrogates) is taken and shown escaped rather than refused up front."""

    command_class = UserBoundCommand



@contextmanager
def progress_bar(label: str, wanted: bool = True) -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` callback that draws a click progress bar on stderr, opened at the
    first call and closed on leaving the block; it draws nothing unless ``wanted`` and stderr is a
    terminal (``--quiet``, ``--json`` and pipes get no bar)."""
    bar = None
    shown = 0

    def progress(done: int, total: int) -> None:
        nonlocal bar, shown
        if not wanted or not sys.stderr.isatty():
            return
        if bar is None:
            bar = click.progressbar(length=total, label=label, file=sys.stderr)
            bar.__enter__()
        bar.update(done - shown)
        shown = done

    try:
        yield progress
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
