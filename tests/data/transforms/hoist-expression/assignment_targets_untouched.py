# flags: --require "= "
a[i], b.c = d[0], e.f
# output
a[i], b.c = d
