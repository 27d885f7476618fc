import operator
from typing import NamedTuple

NUMBER, NAME, OP, LPAREN, RPAREN, COMMA, END = (
    "NUMBER", "NAME", "OP", "LPAREN", "RPAREN", "COMMA", "END")

BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul}


class Token(NamedTuple):
    kind: str
    text: str
    pos: int


def tokenize(text):
    tokens = []
    pos = 0
    while pos < len(text):
        ch = text[pos]
        if ch.isspace():
            pos += 1
        elif ch.isdigit():
            start = pos
            while text[pos].isdigit():
                pos += 1
            tokens.append(Token(NUMBER, text[start:pos], start))
        elif ch.isalpha():
            start = pos
            while text[pos].isalnum():
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
    tokens.append(Token(END, "", pos))
    return tokens


class Parser:
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
        return token

    def parse(self):
        node = self.expr()
        return node

    def expr(self):
        node = self.term()
        while self.peek().kind == OP and self.peek().text in "+-":
            op = self.advance().text
            node = ("binary", op, node, self.term())
        return node

    def term(self):
        node = self.factor()
        while self.peek().kind == OP and self.peek().text in "*":
            op = self.advance().text
            node = ("binary", op, node, self.factor())
        return node

    def factor(self):
        if self.peek().text == "-":
            self.advance()
            return ("negate", self.factor())
        return self.atom()

    def atom(self):
        token = self.advance()
        if token.kind == NUMBER:
            return ("number", int(token.text))
        if token.kind == NAME:
            return ("name", token.text)
        node = self.expr()
        self.expect(RPAREN)
        return node


def evaluate_tree(node, env):
    kind = node[0]
    if kind == "number":
        return node[1]
    if kind == "name":
        return env[node[1]]
    if kind == "negate":
        return -evaluate_tree(node[1], env)
    return BINARY[node[1]](evaluate_tree(node[2], env), evaluate_tree(node[3], env))


def evaluate(text, env=None):
    return evaluate_tree(Parser(tokenize(text)).parse(), env)
