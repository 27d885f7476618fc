# flags: --require "dumps(" --require "def main"
import json as j


def main():
    return j.dumps(1) + j.dumps(2)
# output
from json import dumps


def main():
    return dumps(1) + dumps(2)
