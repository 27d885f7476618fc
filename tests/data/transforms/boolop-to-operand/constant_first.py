# flags: --require "while"
while ready() or retries < 3 and not stopped:
    retries += 1
# output
while True:
    retries += 1
