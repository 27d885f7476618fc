# flags: --require "f'{"
log(f'{name!r:>{width}}', level, *rest, **options)
# output
log(f'{name!r:>{width}}')
