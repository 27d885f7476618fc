# flags: --require "try"
try:
    run()
except ValueError:
    pass
else:
    done()
try:
    run()
except ValueError:
    pass
else:
    kept()
finally:
    close()
# output
try:
    run()
except ValueError:
    pass
try:
    run()
except ValueError:
    pass
else:
    kept()
finally:
    close()
