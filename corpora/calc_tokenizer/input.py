"""A tiny calculator language: tokenizer, recursive-descent parser, evaluator.

Grammar::

    expr   := term (('+' | '-') term)*
    term   := factor (('*' | '/' | '%') factor)*
    factor := '-' factor | atom
    atom   := NUMBER | NAME | NAME '(' args ')' | '(' expr ')'

The bug is an off-by-one in the tokenizer: the loop that reads the digits of
a number tests ``pos <= len(text)``, so a number at the very end of the input
reads one character too far.
"""

import math
import operator
from typing import NamedTuple

__version__ = "0.3.1"

NUMBER, NAME, OP, LPAREN, RPAREN, COMMA, END = (
    "NUMBER", "NAME", "OP", "LPAREN", "RPAREN", "COMMA", "END")

BINARY = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "%": operator.mod,
}

FUNCTIONS = {
    "abs": abs,
    "max": max,
    "min": min,
    "sqrt": math.sqrt,
}

PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2}


class CalcError(Exception):
    """Base class for errors reported to the user of the calculator."""


class CalcSyntaxError(CalcError):
    def __init__(self, message, pos):
        super().__init__(f"{message} at position {pos}")
        self.pos = pos


class CalcNameError(CalcError):
    pass


class Token(NamedTuple):
    kind: str
    text: str
    pos: int


def tokenize(text):
    """Split ``text`` into a list of tokens ending with an END token."""
    tokens = []
    pos = 0
    while pos < len(text):
        ch = text[pos]
        if ch.isspace():
            pos += 1
        elif ch.isdigit():
            start = pos
            while pos <= len(text) and text[pos].isdigit():
                pos += 1
            tokens.append(Token(NUMBER, text[start:pos], start))
        elif ch.isalpha() or ch == "_":
            start = pos
            while pos < len(text) and (text[pos].isalnum() or text[pos] == "_"):
                pos += 1
            tokens.append(Token(NAME, text[start:pos], start))
        elif ch in BINARY:
            tokens.append(Token(OP, ch, pos))
            pos += 1
        elif ch == "(":
            tokens.append(Token(LPAREN, ch, pos))
            pos += 1
        elif ch == ")":
            tokens.append(Token(RPAREN, ch, pos))
            pos += 1
        elif ch == ",":
            tokens.append(Token(COMMA, ch, pos))
            pos += 1
        else:
            raise CalcSyntaxError(f"unexpected character {ch!r}", pos)
    tokens.append(Token(END, "", pos))
    return tokens


class Parser:
    """Recursive-descent parser producing nested tuples."""

    def __init__(self, tokens):
        self.tokens = tokens
        self.index = 0

    def peek(self):
        return self.tokens[self.index]

    def advance(self):
        token = self.tokens[self.index]
        self.index += 1
        return token

    def expect(self, kind):
        token = self.advance()
        if token.kind != kind:
            raise CalcSyntaxError(f"expected {kind}, got {token.kind}", token.pos)
        return token

    def parse(self):
        node = self.expr()
        self.expect(END)
        return node

    def expr(self):
        node = self.term()
        while self.peek().kind == OP and self.peek().text in "+-":
            op = self.advance().text
            node = ("binary", op, node, self.term())
        return node

    def term(self):
        node = self.factor()
        while self.peek().kind == OP and self.peek().text in "*/%":
            op = self.advance().text
            node = ("binary", op, node, self.factor())
        return node

    def factor(self):
        if self.peek().kind == OP and self.peek().text == "-":
            self.advance()
            return ("negate", self.factor())
        return self.atom()

    def atom(self):
        token = self.advance()
        if token.kind == NUMBER:
            return ("number", int(token.text))
        if token.kind == NAME:
            if self.peek().kind == LPAREN:
                self.advance()
                args = []
                if self.peek().kind != RPAREN:
                    args.append(self.expr())
                    while self.peek().kind == COMMA:
                        self.advance()
                        args.append(self.expr())
                self.expect(RPAREN)
                return ("call", token.text, args)
            return ("name", token.text)
        if token.kind == LPAREN:
            node = self.expr()
            self.expect(RPAREN)
            return node
        raise CalcSyntaxError(f"unexpected {token.kind}", token.pos)


def evaluate_tree(node, env):
    kind = node[0]
    if kind == "number":
        return node[1]
    if kind == "name":
        try:
            return env[node[1]]
        except KeyError:
            raise CalcNameError(f"unknown variable {node[1]!r}") from None
    if kind == "negate":
        return -evaluate_tree(node[1], env)
    if kind == "binary":
        return BINARY[node[1]](evaluate_tree(node[2], env), evaluate_tree(node[3], env))
    if kind == "call":
        function = FUNCTIONS.get(node[1])
        if function is None:
            raise CalcNameError(f"unknown function {node[1]!r}")
        return function(*(evaluate_tree(arg, env) for arg in node[2]))
    raise AssertionError(f"bad node {node!r}")


def evaluate(text, env=None):
    """Evaluate one expression; ``env`` maps variable names to values."""
    return evaluate_tree(Parser(tokenize(text)).parse(), env or {})


def to_source(node):
    """Unrelated: turn a tree back into fully parenthesised text."""
    kind = node[0]
    if kind in ("number", "name"):
        return str(node[1])
    if kind == "negate":
        return f"(-{to_source(node[1])})"
    if kind == "binary":
        return f"({to_source(node[2])} {node[1]} {to_source(node[3])})"
    return f"{node[1]}({', '.join(to_source(arg) for arg in node[2])})"


def fold_constants(node):
    """Unrelated: evaluate every sub-tree that has no names in it."""
    kind = node[0]
    if kind == "binary":
        left, right = fold_constants(node[2]), fold_constants(node[3])
        if left[0] == right[0] == "number" and not (node[1] in "/%" and right[1] == 0):
            return ("number", BINARY[node[1]](left[1], right[1]))
        return ("binary", node[1], left, right)
    if kind == "negate":
        inner = fold_constants(node[1])
        return ("number", -inner[1]) if inner[0] == "number" else ("negate", inner)
    return node


def free_names(node):
    """Unrelated: the variable names a tree reads."""
    kind = node[0]
    if kind == "name":
        return {node[1]}
    if kind == "negate":
        return free_names(node[1])
    if kind == "binary":
        return free_names(node[2]) | free_names(node[3])
    if kind == "call":
        return set().union(*(free_names(arg) for arg in node[2]))
    return set()


def repl(lines, env=None):
    """Unrelated: evaluate ``name = expr`` lines and bare expressions, collecting output."""
    env = dict(env or {})
    output = []
    for number, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, rest = line.partition("=")
        try:
            if sep and name.strip().isidentifier():
                env[name.strip()] = evaluate(rest, env)
            else:
                output.append(str(evaluate(line, env)))
        except CalcError as exc:
            output.append(f"line {number}: {exc}")
    return output
