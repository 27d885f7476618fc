# Appended to both releases of statistics.py and run in the module's namespace.
# Python 3.11 made stdev() correctly rounded: a test that compares its result
# with the value Python 3.8 computed now fails in the last digit.
data = [0.09, 8.81, 6.86, 9.69, 7.26, 5.28]
result = stdev(data)
assert result == 3.424204530495611, "stdev(data) = %r" % (result,)
