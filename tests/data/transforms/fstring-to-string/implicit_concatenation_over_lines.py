# flags: --require "ValueError("
raise ValueError(f"bad {x}"
                 " value")
# output
raise ValueError('bad  value')
