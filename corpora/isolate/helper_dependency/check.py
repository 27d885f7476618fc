# Appended to both versions of report.py and run in the module's namespace.
assert convert(2, "km", "m") == 2000.0
text = report([(1.5, "mm")]).strip()
assert text == "0.0015 m", "report gives %r" % (text,)
