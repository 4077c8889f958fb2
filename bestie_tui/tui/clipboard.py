"""Copy text from the console wherever it runs: the terminal's own clipboard first (Textual's
``copy_to_clipboard``, the OSC 52 escape, which also crosses SSH and tmux), the system clipboard
through pyperclip where one exists, and one friendly line when neither can take it."""

from __future__ import annotations

from textual.app import App

#: Shown, as one line, when the text could go nowhere.
NO_CLIPBOARD = ("Nothing was copied: no terminal or system clipboard is reachable here "
                "(select the text with the mouse instead).")


def copy_text(app: App, text: str) -> str | None:
    """Put ``text`` on a clipboard. Returns where it went (``"terminal clipboard"``, ``"clipboard"``)
    or ``None`` when nowhere could take it (the caller shows ``NO_CLIPBOARD``). Never raises."""
    app.copy_to_clipboard(text)  # OSC 52 to the terminal; also kept as the app's own clipboard
    in_terminal = not app.is_headless
    try:
        import pyperclip

        pyperclip.copy(text)
    except Exception:  # pyperclip raises its own and OS errors where no mechanism exists; never fatal
        return "terminal clipboard" if in_terminal else None
    return "clipboard"
