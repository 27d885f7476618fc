"""Trees parsed by another interpreter: for code whose syntax is newer than ours.

:class:`ForeignParser` starts ``wire.py`` as a script under the target
interpreter (the tree model needs only the standard library), sends it texts
and reads back the JSON of :func:`astreduce.source.wire.to_json`;
:func:`from_json` turns that back into a :class:`Tree`. The writing end stays
in ``wire.py`` because the other interpreter runs that file alone.
"""

from __future__ import annotations

import json
import os
import subprocess

from astreduce.source import wire
from astreduce.source.tree import Element, Node, Sequence, Tree


def from_json(text: str, data: str) -> Tree:
    """The inverse of :func:`astreduce.source.wire.to_json`, given the text the tree was parsed from."""
    raw = json.loads(data)
    sequences = {
        q[0]: Sequence(q[0], q[1], q[2], tuple(Element(e[0], e[1], e[2], tuple(e[3])) for e in q[3]), q[4], q[5])
        for q in raw["sequences"]
    }
    tree = Tree(
        text=text,
        nodes=[Node(*n) for n in raw["nodes"]],
        fields=[{k: tuple(v) for k, v in f.items()} for f in raw["fields"]],
        items=[tuple(it if isinstance(it, int) else sequences[it["seq"]] for it in items) for items in raw["items"]],
        element_of={},
        drop_spans={int(k): (v[0], v[1]) for k, v in raw["drop_spans"]},
        indents={int(k): v for k, v in raw["indents"]},
        blocks={(owner, name): sequences[sid] for owner, name, sid in raw["blocks"]},
    )
    for sequence in sequences.values():
        for position, element in enumerate(sequence.elements):
            tree.element_of[element.key] = (sequence, position)
    return tree


class ForeignParser:
    """Parses with another interpreter's ``ast`` (for syntax newer than ours).

    Runs ``wire.py`` as a script under ``python`` — it needs only the
    standard library there — once, and sends it one text per request.
    """

    def __init__(self, python: str) -> None:
        self.python = python
        self._process: subprocess.Popen[bytes] | None = None

    def _server(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                [self.python, os.path.abspath(wire.__file__), "--serve"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        return self._process

    def parse(self, text: str, filename: str = "<input>") -> Tree:
        """Raises SyntaxError when the text does not parse there either."""
        server = self._server()
        assert server.stdin is not None and server.stdout is not None
        request = json.dumps({"text": text, "filename": filename}).encode("utf-8", errors="surrogateescape")
        try:
            server.stdin.write(request + b"\n")
            server.stdin.flush()
            answer = json.loads(server.stdout.readline())
        except (OSError, ValueError) as error:
            self.close()
            raise ValueError(f"{self.python} could not parse: {error}") from None
        if "error" in answer:
            lineno, offset, message = answer["error"]
            syntax_error = SyntaxError(message)
            syntax_error.lineno, syntax_error.offset = lineno, offset
            raise syntax_error
        return from_json(text, answer["tree"])

    def close(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            for pipe in (self._process.stdin, self._process.stdout):
                if pipe is not None:
                    pipe.close()
            self._process = None
