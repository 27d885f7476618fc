# flags: --require "handle(e)"
try:
    a()
except ValueError as e:
    handle(e)
finally:
    done()
# output
handle(e)
