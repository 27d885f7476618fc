# flags: --require "x ="
x = ("abc"
     "def")
# output
x = ''
