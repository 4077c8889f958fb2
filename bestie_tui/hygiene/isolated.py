"""The doctor (and the cleanup plan built from it) in a second process, whose memory goes back to
the system when it exits: what the console runs at scale (issue 31).

At 100,000 memories the analysis holds every record's reading, the TF-IDF rows and hundreds of
thousands of candidate pairs at once. Freed inside a long-lived process, most of that stays
resident (Python keeps its arenas, the readers' caches stay full). ``analyse`` hands the work to
``python -m bestie_tui.hygiene.isolated`` and reads back only the result: the ``DoctorReport`` and,
when asked, the cleanup ``Plan``. Below ``ISOLATE_FROM`` active memories the work is small and
runs in the calling process, as it does when the store is not a file the second process can open.

Protocol (pickles, never a shell): the parent writes one request to the child's stdin; the child
writes ``("progress", stage, fraction)`` messages and then ``("done", report, plan)`` or
``("error", exception)`` to its stdout. The child opens the same database with the parent's clock
frozen at the moment of the request and the parent's user binding, so both processes see one "now".
The report handed back lists the first ``FINDINGS_BACK`` missing-metadata findings and their count
(``DoctorReport.trimmed``).
``cancel_running()`` ends every child still analysing (the console calls it when it quits).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bestie_tui.errors import BestieError
from bestie_tui.store.binding import uses_store

#: From this many active approved memories on, ``analyse`` runs the work in a second process.
ISOLATE_FROM = 2000
#: Missing-metadata findings handed back from the second process (``DoctorReport.trimmed``): what
#: the Doctor view lists of a section (the count is kept); the cleanup plan does not use them.
FINDINGS_BACK = 200

ProgressFn = Callable[[str, float], None]

_running: set[subprocess.Popen] = set()
_lock = threading.Lock()


class AnalysisCancelled(BestieError):
    """The second process was ended (``cancel_running``) before it answered."""


@uses_store
def analyse(store, *, user: str | None = None, judge: bool = False, plan: bool = False, report=None,
            progress: ProgressFn | None = None, isolate: bool | None = None) -> tuple[Any, Any]:
    """The full doctor report of ``store`` and, with ``plan``, the cleanup plan built from it.

    Args:
        store: the open ``MemoryStore``.
        user: the user the doctor is limited to (``run_doctor``'s ``user``).
        judge: ask the owner's language model about related pairs (``run_doctor``'s ``judge``).
        plan: also build the cleanup plan (``plan_build.build_cleanup_plan``).
        report: a full ``DoctorReport`` of the store as it is now to build the plan from, instead of
            running the doctor (it is returned as it is).
        progress: called as ``progress(stage, fraction 0..1)`` from the calling thread.
        isolate: ``True`` runs in a second process, ``False`` here; ``None`` (default) decides by
            size (``ISOLATE_FROM``) and whether the store is a file.

    Returns:
        ``(report, plan or None)``.

    Raises:
        BestieError: what the doctor or the plan builder raised (in either process).
        AnalysisCancelled: ``cancel_running`` ended the second process.
    """
    if isolate is None:
        isolate = _worth_isolating(store, report)
    if isolate and isinstance(store.path, Path) and store.path.exists():
        request = {"path": str(store.path), "now": store.clock(), "binding": store.user, "user": user,
                   "judge": judge, "plan": plan, "report": report}
        try:
            return _in_child(request, progress)
        except OSError:
            pass  # no second process could be started: the same work here is always right
    return _here(store, user=user, judge=judge, plan=plan, report=report, progress=progress)


def cancel_running() -> int:
    """End every second process still analysing; their callers raise ``AnalysisCancelled``.
    Returns how many were ended. Never waits for one to finish its work."""
    with _lock:
        children = list(_running)
    for child in children:
        try:
            child.kill()
        except OSError:
            pass
    return len(children)


def _worth_isolating(store, report) -> bool:
    if report is not None:
        return report.total >= ISOLATE_FROM
    from bestie_tui.store.models import Memory

    active = Memory.select().where((Memory.status == "approved") & Memory.superseded_by.is_null())
    return active.limit(ISOLATE_FROM).count() >= ISOLATE_FROM


def _here(store, *, user, judge, plan, report, progress) -> tuple[Any, Any]:
    from bestie_tui.hygiene.doctor import run_doctor
    from bestie_tui.hygiene.plan_build import build_cleanup_plan

    if report is None:
        report = run_doctor(store, user=user, progress=progress, judge=judge)
    return report, (build_cleanup_plan(store, report) if plan else None)


def _in_child(request: dict, progress: ProgressFn | None) -> tuple[Any, Any]:
    child = subprocess.Popen([sys.executable, "-m", "bestie_tui.hygiene.isolated"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    with _lock:
        _running.add(child)
    try:
        assert child.stdin is not None and child.stdout is not None
        try:
            pickle.dump(request, child.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            child.stdin.close()
        except BrokenPipeError:
            pass  # it ended already: the answer (or its absence) says why
        while True:
            try:
                message = pickle.load(child.stdout)
            except (EOFError, pickle.UnpicklingError, TypeError, AttributeError):
                message = None
            if message is None or message[0] != "progress":
                break
            if progress is not None:
                progress(message[1], message[2])
    finally:
        code = child.wait()
        with _lock:
            _running.discard(child)
    if message is None:
        if code < 0:
            raise AnalysisCancelled("the analysis was stopped")
        raise BestieError(f"the analysis process ended without an answer (exit {code})")
    if message[0] == "error":
        raise message[1]
    return message[1], message[2]


def _forget_caches() -> None:
    from bestie_tui.facts import reader, relations

    reader.clear_cache()
    relations.clear_cache()


def main() -> None:
    """The second process: one request on stdin, progress and the answer on stdout."""
    from bestie_tui.store.memory_store import MemoryStore

    out = sys.stdout.buffer
    request = pickle.load(sys.stdin.buffer)
    now = request["now"]

    def progress(stage: str, fraction: float) -> None:
        pickle.dump(("progress", stage, fraction), out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()

    try:
        store = MemoryStore(request["path"], clock=lambda: now, create_dirs=False, user=request["binding"])
        try:
            report, plan = _here(store, user=request["user"], judge=request["judge"], plan=request["plan"],
                                 report=request["report"], progress=progress)
            answer: tuple = ("done", report.trimmed(FINDINGS_BACK), plan)
        finally:
            store.close()
    except BestieError as exc:
        answer = ("error", exc)
    _forget_caches()  # the memory they hold serves the pickling of the answer instead
    try:
        pickle.dump(answer, out, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        pickle.dump(("error", BestieError(f"the analysis could not be handed back: {exc}")), out)
    out.flush()
    os._exit(0)  # the result is written and the store closed: skip freeing a heap about to vanish


__all__ = ["analyse", "cancel_running", "AnalysisCancelled", "ISOLATE_FROM"]


if __name__ == "__main__":
    main()
