"""The Fuzzing Book's mystery, as a program: it fails when its input holds a "(" before a ")"."""

import sys

text = open(sys.argv[1], encoding="utf-8").read()
opening = text.find("(")
closing = text.find(")")
if 0 <= opening < closing:
    sys.exit("mystery: a parenthesised part")
