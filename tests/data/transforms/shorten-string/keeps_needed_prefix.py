# flags: --require "mod"
name = "module_name"
# output
name = 'mod'
