"""Interestingness test (C-Reduce's convention): exit 0 when the tree in argv[1] shows the bug.

The bug: a numeric time zone's minutes are read modulo 60, so a message
dated ``+0130`` is converted as if it were 70 minutes ahead of UTC. The
check reads such a message with the package in the tree and converts its
date. The guards keep the rest honest: a minutes-only offset (on which the
faulty and the right code agree), the sender's
address and the body, must all come out right. Any other outcome (an
import error, a guard that fails, another exception) exits 1.
"""

import sys

sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else ".")

MESSAGE = "From: Bob <bob@example.org>\nDate: Tue, 03 Nov 2026 11:30:00 {zone}\nSubject: re: hello\n\nhi again\n"


def offset(email, parsedate_to_datetime, zone):
    message = email.message_from_string(MESSAGE.format(zone=zone))
    return parsedate_to_datetime(message["Date"]).utcoffset().total_seconds(), message


def guards(email, parseaddr, parsedate_to_datetime):
    seconds, message = offset(email, parsedate_to_datetime, "-0045")
    if seconds != -2700:
        raise RuntimeError(f"a minutes-only zone reads {seconds} s")
    if parseaddr(message["From"]) != ("Bob", "bob@example.org"):
        raise RuntimeError("the sender is no longer parsed")
    if message.get_payload() != "hi again\n" or message["Subject"] != "re: hello":
        raise RuntimeError("the message is no longer parsed")


def main():
    try:
        import email
        from email.utils import parseaddr, parsedate_to_datetime

        guards(email, parseaddr, parsedate_to_datetime)
        seconds = offset(email, parsedate_to_datetime, "+0130")[0]
    except Exception:
        return 1
    return 0 if seconds == 4200 else 1


if __name__ == "__main__":
    sys.exit(main())
