import re as _re

def _copy_items(items):
    if items is None:
        return []
    return items

class HelpFormatter:
    def __init__(self, prog):
        self._prog = prog
        self._root_section = self._Section(self)

    class _Section:
        def __init__(self, formatter):
            self.formatter = formatter
            self.items = []

        def format_help(self):
            item_help = [func(*args) for func, args in self.items]
            return self.formatter._join_parts(item_help)

    def add_usage(self):
        self._root_section.items.append((self._format_usage, (0, 0, 0, 0)))

    def format_help(self):
        return self._root_section.format_help()

    def _join_parts(self, part_strings):
        return ''.join(part_strings)

    def _format_usage(self, usage, actions, groups, prefix):
        prefix = 'usage: '
        usage = self._prog
        return '%s%s' % (prefix, usage)

class Action:
    def __init__(self, option_strings, dest, nargs=None, const=None, default=None, type=None, help=None):
        self.option_strings = option_strings
        self.dest = dest
        self.nargs = nargs
        self.const = const
        self.default = default
        self.type = type

class _StoreAction(Action):
    def __call__(self, namespace, values):
        setattr(namespace, self.dest, values)

class _StoreConstAction(Action):
    def __init__(self, option_strings, dest, const, default, help):
        super(_StoreConstAction, self).__init__(option_strings=option_strings, dest=dest, nargs=0, const=const, default=default)

    def __call__(self, namespace, values):
        setattr(namespace, self.dest, self.const)

class _StoreTrueAction(_StoreConstAction):
    def __init__(self, option_strings, dest, help):
        super(_StoreTrueAction, self).__init__(option_strings=option_strings, dest=dest, const=True, default=False, help=help)

class _AppendAction(Action):
    def __call__(self, namespace, values):
        items = getattr(namespace, self.dest, None)
        items = _copy_items(items)
        items.insert(0, values)
        setattr(namespace, self.dest, items)

class Namespace:
    pass

class ArgumentParser:
    def __init__(self, prog, description=None, prefix_chars='-', exit_on_error=True):
        self.prog = prog
        self.prefix_chars = prefix_chars
        self._registries = {}
        self.register('action', None, _StoreAction)
        self.register('action', 'store_true', _StoreTrueAction)
        self.register('action', 'append', _AppendAction)

        def identity(string):
            return string
        self.register('type', None, identity)
        self._actions = []
        self._option_string_actions = {}

    def register(self, registry_name, value, object):
        self._registries.setdefault(registry_name, {})[value] = object

    def add_argument(self, *args, **kwargs):
        if args[0][0] not in self.prefix_chars:
            kwargs = dict(dest=args[0], option_strings=[])
        else:
            kwargs = self._get_optional_kwargs(*args, **kwargs)
        action_class = self._registries['action'][kwargs.pop('action', None)]
        action = action_class(**kwargs)
        self._actions.append(action)
        for option_string in action.option_strings:
            self._option_string_actions[option_string] = action

    def _get_optional_kwargs(self, *args, **kwargs):
        option_strings = []
        long_option_strings = []
        for option_string in args:
            option_strings.append(option_string)
            if option_string[1] in self.prefix_chars:
                long_option_strings.append(option_string)
        dest = kwargs.pop('dest', None)
        if dest is None:
            dest = long_option_strings[0].lstrip(self.prefix_chars)
        return dict(kwargs, dest=dest, option_strings=option_strings)

    def parse_args(self, args):
        namespace = Namespace()
        for action in self._actions:
            setattr(namespace, action.dest, action.default)
        self._parse_known_args(args, namespace)
        return namespace

    def _parse_known_args(self, arg_strings, namespace):
        option_string_indices = {}
        arg_string_pattern_parts = []
        for i, arg_string in enumerate(arg_strings):
            if arg_string in self._option_string_actions:
                option_string_indices[i] = self._option_string_actions[arg_string]
                pattern = ''
            else:
                pattern = 'A'
            arg_string_pattern_parts.append(pattern)

        def take_action(action, argument_strings):
            action(namespace, self._get_values(action, argument_strings))

        def consume_positionals(start_index):
            for action, arg_count in zip(self._actions, self._match_arguments_partial(self._actions, arg_string_pattern_parts[start_index])):
                start_index += arg_count
                take_action(action, arg_strings[:arg_count])
            return start_index

        start_index = 0
        if option_string_indices:
            max_option_string_index = max(option_string_indices)
        else:
            max_option_string_index = -1
        while start_index <= max_option_string_index:
            start_index = consume_positionals(start_index)
            action = option_string_indices[start_index]
            start = start_index + 1
            stop = start + len(_re.match(self._get_nargs_pattern(action), arg_string_pattern_parts[start]).group())
            take_action(action, arg_strings[start:stop])
            start_index = stop
        consume_positionals(0)

    def _match_arguments_partial(self, actions, arg_strings_pattern):
        result = []
        for i in range(len(actions), 0, -1):
            match = _re.match(''.join([self._get_nargs_pattern(action) for action in actions[:i]]), arg_strings_pattern)
            if match:
                result.extend([len(string) for string in match.groups()])
        return result

    def _get_nargs_pattern(self, action):
        if action.nargs is None:
            nargs_pattern = '(-*A-*)'
        else:
            nargs_pattern = ''
        return nargs_pattern

    def _get_values(self, action, arg_strings):
        if action.nargs is None:
            arg_string, = arg_strings
            value = self._registries['type'].get(action.type, action.type)(arg_string)
        else:
            value = 0
        return value

    def format_usage(self):
        formatter = HelpFormatter(prog=self.prog)
        formatter.add_usage()
        return formatter.format_help()
