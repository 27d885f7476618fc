# flags: --require "except ValueError"
try:
    run()
except KeyError:
    pass
except ValueError as error:
    report(error)
except (TypeError, OSError):
    raise
else:
    done()
# output
try:
    pass
except ValueError as error:
    pass
else:
    pass
