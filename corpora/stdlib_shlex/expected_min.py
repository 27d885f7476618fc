import re
from io import StringIO

class shlex:
    def __init__(self, instream, punctuation_chars=False):
        self.instream = StringIO(instream)
        self.commenters = '#'
        self.wordchars = 'abcdfeghijklmnopqrstuvwxyz'
        self.whitespace = ' '
        self.quotes = '\'"'
        self.escape = '\\'
        self.state = ' '
        if not punctuation_chars:
            punctuation_chars = ''
        elif punctuation_chars is True:
            punctuation_chars = '();<>|&'
        self._punctuation_chars = punctuation_chars

    @property
    def punctuation_chars(self):
        return self._punctuation_chars

    def get_token(self):
        raw = self.read_token()
        return raw

    def read_token(self):
        while True:
            nextchar = self.instream.read(1)
            if self.state == ' ':
                if not nextchar:
                    break
                elif nextchar in self.commenters:
                    self.instream.readline()
                elif nextchar in self.wordchars:
                    self.token = nextchar
                    self.state = 'a'
                elif nextchar in self.punctuation_chars:
                    self.token = nextchar
                    self.state = 'c'
                elif nextchar in self.quotes:
                    self.state = nextchar
            elif self.state in self.quotes:
                if not nextchar:
                    raise ValueError("No closing quotation")
                if nextchar == self.state:
                    self.state = 'a'
                elif nextchar in self.escape:
                    escapedstate = 'a'
                    self.state = nextchar
                else:
                    self.token += nextchar
            elif self.state in self.escape:
                self.token += nextchar
                self.state = escapedstate
            elif self.state in ('a', 'c'):
                if nextchar in self.whitespace:
                    self.state = ' '
                    break
                elif nextchar in self.quotes:
                    self.state = nextchar
                elif nextchar in self.escape:
                    escapedstate = 'a'
                    self.state = nextchar
                else:
                    self.token += nextchar
        result = self.token
        self.token = ''
        return result

    def __iter__(self):
        return self

    def __next__(self):
        token = self.get_token()
        if token == '':
            raise StopIteration
        return token

def split(s, comments=False):
    lex = shlex(s)
    return list(lex)

def join(split_command):
    return ' '.join(quote(arg) for arg in split_command)

_find_unsafe = re.compile(r'[^\w@%+=:,./-]').search

def quote(s):
    if _find_unsafe(s) is None:
        return s
    return "'" + s.replace("'", "'\"'\"'") + "'"
