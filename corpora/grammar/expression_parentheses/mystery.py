"""The Fuzzing Book's mystery behind a parser: a valid expression with a "(" before a ")" fails.

Exit 2 (not an expression: UNRESOLVED under ``--exit-code 1``), 1 (the
failure), 0 (a valid expression without a parenthesised part). The parser
reads the book's expression grammar (``grammar.lark``) by recursive descent,
so character ddmin sees what the book's EvalMysteryRunner sees.
"""

import re
import sys

TOKEN = re.compile(r"\s*(\d+|[-+*/().])")


def tokens(text):
    out, position = [], 0
    text = text.rstrip("\n")
    while position < len(text):
        match = TOKEN.match(text, position)
        if match is None:
            if text[position:].strip():
                raise SyntaxError(position)
            break
        out.append(match.group(1))
        position = match.end()
    return out


def expression(items, at):
    at = term(items, at)
    while at < len(items) and items[at] in "+-":
        at = term(items, at + 1)
    return at


def term(items, at):
    at = factor(items, at)
    while at < len(items) and items[at] in "*/":
        at = factor(items, at + 1)
    return at


def factor(items, at):
    if at >= len(items):
        raise SyntaxError(at)
    if items[at] in "+-":
        return factor(items, at + 1)
    if items[at] == "(":
        at = expression(items, at + 1)
        if at >= len(items) or items[at] != ")":
            raise SyntaxError(at)
        return at + 1
    if not items[at].isdigit():
        raise SyntaxError(at)
    if at + 2 < len(items) and items[at + 1] == "." and items[at + 2].isdigit():
        return at + 3
    return at + 1


text = open(sys.argv[1], encoding="utf-8").read()
try:
    items = tokens(text)
    if not items or expression(items, 0) != len(items):
        raise SyntaxError(len(items))
except (SyntaxError, RecursionError):
    sys.exit(2)
opening = text.find("(")
if 0 <= opening < text.find(")"):
    sys.exit("mystery: a parenthesised part")
