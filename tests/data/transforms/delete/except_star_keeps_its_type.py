# flags: --require "except*"
try:
    pass
except* ValueError:
    pass
# output
try:
    pass
except* ValueError:
    pass
