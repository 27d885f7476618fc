# flags: --require "opened" --require "done" --require "closed"
try:
    opened = 1
except ValueError:
    opened = 0
else:
    done = 2
finally:
    closed = 3
# output
opened = 1
done = 2
closed = 3
