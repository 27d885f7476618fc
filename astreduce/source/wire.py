"""The tree model as JSON, served to another interpreter's caller: ``python wire.py --serve``.

:class:`astreduce.source.foreign.ForeignParser` runs this file as a script
under the interpreter whose grammar a reduction needs (``--python 3.12``);
it parses each text it is sent with that interpreter's ``ast`` and answers
with :func:`to_json` (read back by :func:`astreduce.source.foreign.from_json`).
Only the standard library and its sibling modules are imported there.
"""

from __future__ import annotations

import json
import sys

try:
    from astreduce.source.tree import Sequence, Tree, parse
except ImportError:  # run alone as a script: the siblings are on sys.path
    from tree import Sequence, Tree, parse  # type: ignore[import-not-found,no-redef]  # the script's folder


def to_json(tree: Tree) -> str:
    """The tree as JSON for :class:`astreduce.source.foreign.ForeignParser`."""
    sequences: dict[int, Sequence] = {}
    for sequence, _ in tree.element_of.values():
        sequences[sequence.id] = sequence
    for sequence in tree.blocks.values():
        sequences[sequence.id] = sequence
    return json.dumps(
        {
            "nodes": [[n.id, n.kind, n.parent, n.field, n.index, n.start, n.end, n.depth, n.name, n.constant] for n in tree.nodes],
            "fields": tree.fields,
            "sequences": [
                [q.id, q.owner, q.kind, [[e.key, e.start, e.end, list(e.nodes)] for e in q.elements], q.empty, q.min_kept]
                for q in sequences.values()
            ],
            "items": [[it if isinstance(it, int) else {"seq": it.id} for it in items] for items in tree.items],
            "drop_spans": list(tree.drop_spans.items()),
            "indents": list(tree.indents.items()),
            "blocks": [[owner, name, q.id] for (owner, name), q in tree.blocks.items()],
        }
    )


def serve() -> None:
    """``python wire.py --serve``: one JSON request per line in, one JSON answer per line out."""
    for line in sys.stdin.buffer:
        request = json.loads(line.decode("utf-8", errors="surrogateescape"))
        answer: dict[str, object]
        try:
            answer = {"tree": to_json(parse(request["text"], request["filename"]))}
        except SyntaxError as error:
            answer = {"error": [error.lineno, error.offset, error.msg]}
        except (ValueError, RecursionError, MemoryError) as error:
            answer = {"error": [None, None, str(error) or type(error).__name__]}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve()
