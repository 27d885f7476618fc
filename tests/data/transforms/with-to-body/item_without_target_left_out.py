# flags: --require "log.write"
import contextlib
import io

with contextlib.suppress(KeyError), io.StringIO() as log:
    log.write("x")
# output
import contextlib
import io

log = io.StringIO()
log.write("x")
