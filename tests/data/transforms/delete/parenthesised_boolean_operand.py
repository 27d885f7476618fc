# flags: --require "c"
if (a and (b or c)) or d:
    run(a, b)
else:
    stop()
# output
if ((c)):
    pass
else:
    pass
