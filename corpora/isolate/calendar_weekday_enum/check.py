# Appended to both releases of calendar.py and run in the module's namespace.
# Python 3.12 returns the first weekday of a month as a Day enum member: code
# that formats it with %r (a log line, a doctest) prints THURSDAY, not 3.
first_weekday, days = monthrange(2024, 2)
assert "%r" % (first_weekday,) == "3", "monthrange(2024, 2)[0] is %r" % (first_weekday,)
