# flags: --require "log(" --require "level"
log(f"{user}: {action}", level=f"{lvl}")
# output
log(': ', level='')
