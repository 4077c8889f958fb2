"""Print every import loop among ``bestie_tui``'s modules, counting imports inside functions
(an import under ``if TYPE_CHECKING:`` alone does not count). Exit 1 when there is one.

import-linter's contracts check the direction between packages; this checks that no group of
modules imports itself round, which a layers contract cannot see inside one package.
"""

from __future__ import annotations

import sys

import grimp


def loops(package: str = "bestie_tui") -> list[list[str]]:
    """Strongly connected groups of two or more modules (Tarjan, 1972), each sorted."""
    graph = grimp.build_graph(package, exclude_type_checking_imports=True)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for module in sorted(edges):
        if module not in index:
            visit(module)
    return found


def main() -> int:
    found = loops()
    for group in found:
        print("import loop:", " ↔ ".join(group))
    if not found:
        print("no import loops")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
