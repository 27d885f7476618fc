# flags: --require "label = " --require "= ''"
label = title = ''
# output
label = ''
