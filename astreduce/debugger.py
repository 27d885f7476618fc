"""DeltaDebugger: reduce the arguments of a failing call with two lines of code.

::

    with DeltaDebugger() as dd:
        mystery(inp)
    dd                      # mystery(inp='()')

The interface follows the DeltaDebugger of *The Fuzzing Book* (chapter
"Reducing Failure-Inducing Inputs"); the code here is written independently
on top of :mod:`astreduce.dd`.

How a call is collected: ``__enter__`` installs a profile function
(``sys.setprofile``, which leaves ``sys.settrace`` to debuggers and coverage
tools). Its first ``call`` event for a Python function is the collected
call: the function object is found from the frame's code object, and the
arguments are read from the frame's locals by the parameter names of
:func:`inspect.signature`, before the function has run a single line. The
profile function then removes itself, so the rest of the block runs at full
speed. Calls of this module's own code (``__exit__``, a ``DeltaDebugger``
made inside the block) are never collected, nor are frames that are not
calls of a function one can repeat (comprehension bodies, generators and
coroutines, class bodies). Calls of built-in functions are not Python-level
calls, and a call in an argument (``f(g(x))``) comes before the call it is
an argument of. ``__exit__`` swallows the exception that ends the block and keeps it
as the failure to reproduce; an exception raised before any call was
collected is not swallowed.

Outcomes: calling the function with candidate arguments is FAIL when it
raises an exception of exactly the collected type with the same message
(``str(exc)``), UNRESOLVED when it raises any other :class:`Exception`, and
PASS when it returns. Exceptions that are not :class:`Exception`
(``KeyboardInterrupt``, ``SystemExit``) are never swallowed.

Which arguments are reduced: those whose type is exactly ``str``, ``bytes``,
``list`` or ``tuple`` (a ``*args`` parameter is a tuple, so it is reduced
too). Subclasses such as named tuples are left alone, because delta debugging
rebuilds candidates as the base type and the function would see a different
kind of value. Everything else (ints, ``None``, dicts, ``**kwargs``) keeps
its collected value.

Every test sees the arguments as they were when the call was collected:
they are deep-copied at collection and again for every test, so a function
that mutates its arguments cannot change later outcomes. All arguments are
copied together, in one ``copy.deepcopy`` of the whole set, so objects they
share stay shared: a list of nodes that points into a tree passed beside it
still points into the copy of that tree (only when the set cannot be copied
as a whole is each argument copied on its own, or passed as it is). Outcomes are cached by the values of
the reduced arguments (when those are hashable), so repeated turns over the
arguments do not call the function again for a candidate already seen;
:attr:`DeltaDebugger.tests` counts real calls only.

The search is general dd one test at a time, in the paper's order
(:mod:`astreduce.dd.stepwise`), so every example of the literature's
chapter gives the chapter's result, test by test. The empty input is tested
first: where it is UNRESOLVED (``eval('')`` is a syntax error) it still
serves as the passing start of :meth:`max_args` and :meth:`min_arg_diff`;
only an empty input that FAILs is refused there. ``log=True`` prints every
test; ``log=2`` also prints each round's passing and failing input, its
granularity and the move made.
"""

from __future__ import annotations

import copy
import gc
import inspect
import sys
import types
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from astreduce.dd import DDResult, Mode, Outcome
from astreduce.dd.stepwise import Observer, dd_stepwise
from astreduce.errors import (
    DDPreconditionError,
    FailureNotReproducedError,
    NoCallError,
    NotFailingError,
)

if TYPE_CHECKING:
    from _typeshed import ProfileFunction

__all__ = ["DeltaDebugger"]

#: The argument types that are reduced (exact types, see the module docstring).
REDUCIBLE_TYPES: tuple[type, ...] = (str, bytes, list, tuple)

# Frames whose code has one of these flags are not a call one can repeat to
# see the failure: calling a generator or coroutine function runs no code.
_SKIPPED_FLAGS = (
    inspect.CO_GENERATOR
    | inspect.CO_COROUTINE
    | inspect.CO_ASYNC_GENERATOR
    | inspect.CO_ITERABLE_COROUTINE
)
# Before Python 3.12 comprehensions run in frames of their own.
#: Code never collected: comprehensions, modules, and finalizers (``__del__``: the garbage
#: collector runs one from whatever frame is current, e.g. an event loop's of an earlier test).
_COMPREHENSIONS = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"})
_SKIPPED_NAMES = _COMPREHENSIONS | {"<module>", "__del__"}
_LOG_WIDTH = 300

Arguments = dict[str, object]
E = TypeVar("E")


def _is_reducible(value: object) -> bool:
    return type(value) in REDUCIBLE_TYPES


def _as_sequence(value: object) -> Sequence[object]:
    """``value``, known to be reducible, typed as the sequence it is."""
    assert _is_reducible(value), value
    return cast("Sequence[object]", value)


def _snapshot(value: object) -> object:
    """A deep copy of ``value``, or ``value`` itself if it cannot be copied."""
    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001  # an object that refuses to be copied is passed as it is
        return value


def _snapshot_all(arguments: Arguments) -> Arguments:
    """A deep copy of all ``arguments`` at once, so that objects they share stay shared.

    When the set cannot be copied as a whole, each argument is copied on its
    own (or passed as it is), so one uncopyable argument spoils nothing else.
    """
    try:
        return copy.deepcopy(arguments)
    except Exception:  # noqa: BLE001  # an object that refuses to be copied is passed as it is
        return {name: _snapshot(value) for name, value in arguments.items()}


def _shown(value: object) -> str:
    """``repr`` of a value for the log, cut to a line."""
    text = repr(value)
    return text if len(text) <= _LOG_WIDTH else text[: _LOG_WIDTH - 3] + "..."


def _outcome_text(exc: BaseException | None) -> str:
    return "no exception" if exc is None else repr(exc)


def _format_exception(exc: BaseException) -> str:
    """``ValueError: Invalid input``, or the bare type when the message is empty."""
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _find_function(frame: types.FrameType) -> types.FunctionType | None:
    """The function object whose call created ``frame``, if one can be found.

    A frame knows its code but not its function. The fast path looks the
    code's name up in the frame's globals; otherwise every function sharing
    the code object is a candidate, and closures are told apart by comparing
    their cells with the frame's free variables.
    """
    code = frame.f_code
    named = frame.f_globals.get(code.co_name)
    if isinstance(named, types.FunctionType) and named.__code__ is code:
        return named
    functions = [
        f
        for f in gc.get_referrers(code)
        if isinstance(f, types.FunctionType) and f.__code__ is code
    ]
    if len(functions) > 1 and code.co_freevars:
        local_values = frame.f_locals
        for function in functions:
            cells = function.__closure__ or ()
            try:
                if all(
                    cell.cell_contents is local_values.get(name)
                    for name, cell in zip(code.co_freevars, cells)
                ):
                    return function
            except ValueError:  # an empty cell cannot be the one in use
                continue
    return functions[0] if functions else None


def _call_parts(
    signature: inspect.Signature, arguments: Arguments
) -> tuple[list[object], dict[str, object]]:
    """Positional and keyword arguments that call a function with ``arguments``.

    Parameters are passed by keyword where Python allows it; positional-only
    parameters, and every parameter before a non-empty ``*args``, go by
    position.
    """
    parameters = list(signature.parameters.values())
    var_positional = next(
        (p for p in parameters if p.kind is inspect.Parameter.VAR_POSITIONAL), None
    )
    has_star_args = var_positional is not None and bool(arguments[var_positional.name])
    positional: list[object] = []
    keywords: dict[str, object] = {}
    for parameter in parameters:
        value = arguments[parameter.name]
        if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            positional.append(value)
        elif parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
            if has_star_args:
                positional.append(value)
            else:
                keywords[parameter.name] = value
        elif parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            positional.extend(cast("tuple[object, ...]", value))  # collected from *args
        elif parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            keywords[parameter.name] = value
        else:
            keywords.update(cast("dict[str, object]", value))  # collected from **kwargs
    return positional, keywords


def _assemble(like: object, items: Sequence[object]) -> object:
    """Build a value of ``like``'s type (str, bytes, list or tuple) from ``items``."""
    if isinstance(like, str):
        return "".join(items)  # type: ignore[arg-type]  # the items of a str are str
    if isinstance(like, bytes):
        return bytes(items)  # type: ignore[arg-type]  # the items of bytes are int
    if isinstance(like, tuple):
        return tuple(items)
    return list(items)


class DeltaDebugger:
    """Collect the first call in a ``with`` block and reduce its arguments.

    Example::

        with DeltaDebugger() as dd:
            mystery(inp)
        dd.min_args()       # {'inp': '()'}
        dd                  # mystery(inp='()')

    Attributes:
        tests: the number of times the debugger has called the function so
            far (cumulative over all methods; cached outcomes do not count).
    """

    def __init__(self, *, log: bool | int = False) -> None:
        """Create a debugger.

        Args:
            log: ``True`` (or 1) prints every test (the call and its outcome)
                and each argument's result to stderr; 2 also prints each
                round of the search: the passing and the failing input, the
                granularity and the move made.
        """
        self.log = log
        self.tests = 0
        self._reset()

    def _reset(self) -> None:
        self._function: types.FunctionType | None = None
        self._signature: inspect.Signature | None = None
        self._arguments: Arguments = {}
        self._exception: Exception | None = None
        self._previous_profile: ProfileFunction | None = None
        self._is_reproduced = False
        self._cache: dict[Hashable, Outcome] = {}
        self._min_args: Arguments | None = None
        self._max_args: Arguments | None = None
        self._min_arg_diff: tuple[Arguments, Arguments, Arguments] | None = None

    # -- collecting the call -------------------------------------------------

    def __enter__(self) -> DeltaDebugger:
        self._reset()
        self._previous_profile = sys.getprofile()
        self._block = sys._getframe(1)  # the frame running the with block: its calls are the candidates
        self._collecting = False
        gc.callbacks.append(self._on_collection)
        sys.setprofile(self._profile)  # last: nothing of ours may run after it
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: types.TracebackType | None,
    ) -> bool:
        sys.setprofile(self._previous_profile)
        if self._on_collection in gc.callbacks:
            gc.callbacks.remove(self._on_collection)
        if self._function is None:
            if exc is not None:
                return False  # raised before any call: not ours to swallow
            raise NoCallError("the DeltaDebugger block made no Python function call to collect")
        if exc is None:
            raise NotFailingError(
                f"the collected call {self._render(self._arguments)} raised no exception;"
                " a DeltaDebugger block must end with the failure to reduce"
            )
        if not isinstance(exc, Exception):
            return False  # KeyboardInterrupt, SystemExit: never swallowed
        self._exception = exc
        self._say(f"Observed {self._render(self._arguments)} raising {_format_exception(exc)}")
        return True

    def _on_collection(self, phase: str, info: dict[str, int]) -> None:
        """What the garbage collector runs (finalizers, weakref callbacks) is never the block's call."""
        self._collecting = phase == "start"

    def _profile(self, frame: types.FrameType, event: str, arg: Any) -> None:
        if event != "call" or self._function is not None or self._collecting:
            return
        code = frame.f_code
        caller = frame.f_back
        while caller is not None and caller.f_code.co_name in _COMPREHENSIONS:
            caller = caller.f_back  # a comprehension in the block is the block's own code
        if caller is not self._block:
            return  # called by something else: a finalizer the collector runs, an event loop's callback
        if (
            frame.f_globals is _OWN_GLOBALS  # our own machinery, __exit__ included
            or code.co_flags & _SKIPPED_FLAGS
            or code.co_name in _SKIPPED_NAMES
        ):
            return
        function = _find_function(frame)
        if function is None:  # a class body, or a function that no longer exists
            return
        if any(function is callback for callback in gc.callbacks):
            return  # the garbage collector's callback (hypothesis times GC so), called from anywhere
        try:
            signature = inspect.signature(function, follow_wrapped=False)
        except (TypeError, ValueError):
            return
        local_values = frame.f_locals
        if any(name not in local_values for name in signature.parameters):
            return  # a __signature__ that does not match the code
        self._function = function
        self._signature = signature
        self._arguments = _snapshot_all({name: local_values[name] for name in signature.parameters})
        sys.setprofile(self._previous_profile)  # collected: let the block run at full speed

    # -- what was collected ----------------------------------------------------

    def function(self) -> Callable[..., object]:
        """The function of the collected call.

        Raises:
            NoCallError: no call has been collected.
        """
        return self._require_call()[0]

    def args(self) -> dict[str, object]:
        """The collected arguments, by parameter name, as they were at the call.

        Raises:
            NoCallError: no call has been collected.
        """
        self._require_call()
        return dict(self._arguments)

    def exception(self) -> Exception:
        """The exception that ended the block: the failure being reduced.

        Raises:
            NoCallError: no call has been collected.
        """
        self._require_call()
        if self._exception is None:
            raise NoCallError("the block has not ended with an exception yet")
        return self._exception

    def _require_call(self) -> tuple[types.FunctionType, inspect.Signature]:
        if self._function is None or self._signature is None:
            raise NoCallError(
                "no call has been collected; call a function inside `with DeltaDebugger()`"
            )
        return self._function, self._signature

    # -- testing ---------------------------------------------------------------

    def _reducible_names(self) -> list[str]:
        return [name for name, value in self._arguments.items() if _is_reducible(value)]

    def _cache_key(self, arguments: Arguments) -> Hashable | None:
        # Only reduced arguments ever change, so they alone make the key.
        key: tuple[object, ...] = tuple(
            value if isinstance(value, (str, bytes)) else (type(value), tuple(_as_sequence(value)))
            for name, value in arguments.items()
            if _is_reducible(self._arguments[name])
        )
        try:
            hash(key)
        except TypeError:  # unhashable items: test without the cache
            return None
        return key

    def _run(self, arguments: Arguments) -> tuple[Outcome, Exception | None]:
        """Call the function once with ``arguments``; its outcome and exception."""
        function, signature = self._require_call()
        expected = self.exception()
        positional, keywords = _call_parts(signature, _snapshot_all(arguments))
        self.tests += 1
        raised: Exception | None = None
        try:
            function(*positional, **keywords)
        except Exception as exc:  # noqa: BLE001  # the function under test may raise anything
            raised = exc
        if raised is None:
            outcome = Outcome.PASS
        elif type(raised) is type(expected) and str(raised) == str(expected):
            outcome = Outcome.FAIL
        else:
            outcome = Outcome.UNRESOLVED
        if self.log:
            self._log(arguments, outcome, raised)
        return outcome, raised

    def _log(self, arguments: Arguments, outcome: Outcome, raised: Exception | None) -> None:
        call = self._render(arguments)
        if len(call) > _LOG_WIDTH:
            call = call[: _LOG_WIDTH - 3] + "..."
        detail = "" if raised is None else f" ({_format_exception(raised)})"
        print(f"Test #{self.tests} {call}: {outcome.name}{detail}", file=sys.stderr)

    def _say(self, line: str, level: int = 1) -> None:
        if self.log >= level:
            print(line, file=sys.stderr)

    def _outcome(self, arguments: Arguments) -> Outcome:
        key = self._cache_key(arguments)
        if key is not None and key in self._cache:
            return self._cache[key]
        outcome, _ = self._run(arguments)
        if key is not None:
            self._cache[key] = outcome
        return outcome

    def _ensure_reproduced(self) -> None:
        """Repeat the collected call once; it must fail the same way."""
        if self._is_reproduced:
            return
        expected = self.exception()
        outcome, raised = self._run(self._arguments)
        if outcome is not Outcome.FAIL:
            raise FailureNotReproducedError(
                f"repeating {self._render(self._arguments)} raised {_outcome_text(raised)},"
                f" not {_outcome_text(expected)} as in the block; is the function deterministic?"
            )
        key = self._cache_key(self._arguments)
        if key is not None:
            self._cache[key] = outcome
        self._is_reproduced = True

    # -- reducing --------------------------------------------------------------

    def dd(
        self, var: str, args: dict[str, object], *, mode: Mode = "-"
    ) -> tuple[Sequence[object], Sequence[object], Sequence[object]]:
        """General delta debugging of one argument, the others fixed at their values in ``args``.

        Args:
            var: the name of the argument to reduce; ``args[var]`` is the
                failing value (a str, bytes, list or tuple).
            args: a value for every parameter of the collected function.
            mode: ``-`` minimises the failing value, ``+`` maximises a
                passing one, ``+-`` does both.

        Returns:
            ``(passing, failing, difference)``: the maximal passing value
            (empty in mode ``-``), the minimal failing value (``args[var]``
            in mode ``+``) and the elements of the second not in the first,
            each of ``args[var]``'s type.

        Raises:
            NoCallError: no call has been collected.
            DDPreconditionError: in modes ``+`` and ``+-`` the empty value
                FAILs; in modes ``-`` and ``+-`` ``args[var]`` PASSes.
        """
        self._require_call()
        value = args[var]
        if not _is_reducible(value):
            raise DDPreconditionError(
                f"{var} is a {type(value).__name__}; dd reduces a str, bytes, list or tuple"
            )

        def test(candidate: Sequence[object]) -> Outcome:
            return self._outcome({**args, var: candidate})

        result = dd_stepwise(_as_sequence(value), test, mode, observe=self._observe(_shown))
        return result.passing, result.failing, result.difference

    def _observe(self, show: Callable[[Sequence[E]], str]) -> Observer[E] | None:
        """The trace of ``log=2``: each round's inputs (as ``show`` writes them) and granularity, and each move."""
        if self.log < 2:
            return None

        def observe(step: str, passing: Sequence[E], failing: Sequence[E], n: int) -> None:
            if step == "round":
                self._say(f"Passing input: {show(passing)}", 2)
                self._say(f"Failing input: {show(failing)}", 2)
                self._say(f"Granularity:   {n}", 2)
            else:
                self._say(step.capitalize(), 2)

        return observe

    def min_args(self) -> dict[str, object]:
        """Arguments that still fail, each reducible one 1-minimal.

        The reducible arguments are minimised with :meth:`dd` in turns (in
        parameter order, the others at their current values) until each has
        been minimised since the last change to any other. So removing any single element from any
        one of them makes the failure go away.

        Returns:
            The arguments by parameter name; unreduced ones as collected.

        Raises:
            NoCallError: no call has been collected.
            FailureNotReproducedError: repeating the call does not fail the same way.
        """
        if self._min_args is None:
            self._ensure_reproduced()
            current = dict(self._arguments)
            # An argument is settled once dd has minimised it with the others
            # as they are now; a change to another unsettles it again.
            settled: set[str] = set()
            while True:
                name = next(
                    (n for n in self._reducible_names() if n not in settled and current[n]), None
                )
                if name is None:
                    break
                self._say(f"Processing {name}...")
                _, reduced, _ = self.dd(name, current, mode="-")
                if len(reduced) < len(_as_sequence(current[name])):
                    current[name] = reduced
                    settled = set()
                    self._say(f"Minimized {name} to {_shown(reduced)}")
                settled.add(name)
            self._min_args = current
            if current != self._arguments:
                self._say(f"Minimized failing call to {self._render(current)}")
        return dict(self._min_args)

    def max_args(self) -> dict[str, object]:
        """Passing arguments that are 1-maximal: adding back any one element does not pass.

        Unlike :meth:`min_args`, this is one dd search (mode ``+``) over the
        elements of all reducible arguments together, starting from the call
        with every reducible argument empty. A joint search makes the result
        1-maximal across arguments, and needs no passing value of one
        argument to go with the others' values. The empty start may be
        UNRESOLVED (``eval('')``): dd needs it only not to fail.

        Returns:
            The arguments by parameter name; each reducible one is a
            subsequence of its collected value.

        Raises:
            NoCallError: no call has been collected.
            FailureNotReproducedError: repeating the call does not fail the same way.
            DDPreconditionError: the call with every reducible argument empty fails.
        """
        if self._max_args is None:
            result = self._joint_dd("+")
            self._max_args = self._assemble(result.passing)
            self._say(f"Maximized passing call to {self._render(self._max_args)}")
        return dict(self._max_args)

    def min_arg_diff(self) -> tuple[dict[str, object], dict[str, object], dict[str, object]]:
        """A passing and a failing call whose arguments differ minimally.

        One dd search (mode ``+-``) over the elements of all reducible
        arguments together, between the call with every reducible argument
        empty (which must not fail) and the collected call.

        Returns:
            ``(passing_args, failing_args, diff)``: the first two are
            arguments by name, the first does not fail (it PASSes, or it is
            the empty start when that is UNRESOLVED) and the second FAILs,
            and each reducible argument of the passing call is a subsequence
            of the failing one's. ``diff`` maps every reducible argument's
            name to the elements in the failing value but not the passing
            one (in the argument's type, possibly empty). The difference is
            1-minimal: adding any single one of its elements to the passing
            arguments does not pass, and removing any single one from the
            failing arguments does not fail.

        Raises:
            The errors of :meth:`max_args`, for the same reasons.
        """
        if self._min_arg_diff is None:
            result = self._joint_dd("+-")
            names = self._reducible_names()
            diff: Arguments = {name: _as_sequence(self._arguments[name])[:0] for name in names}
            diff.update({k: v for k, v in self._assemble(result.difference).items() if k in diff})
            self._min_arg_diff = (
                self._assemble(result.passing),
                self._assemble(result.failing),
                diff,
            )
        passing, failing, diff = self._min_arg_diff
        return dict(passing), dict(failing), dict(diff)

    def _joint_dd(self, mode: Mode) -> DDResult[tuple[str, object]]:
        self._ensure_reproduced()
        elements = [
            (name, item)
            for name in self._reducible_names()
            for item in _as_sequence(self._arguments[name])
        ]

        def test(candidate: Sequence[tuple[str, object]]) -> Outcome:
            return self._outcome(self._assemble(candidate))

        empty = self._assemble([])
        if self._outcome(empty) is Outcome.FAIL:  # cached, so dd's own check costs nothing more
            raise DDPreconditionError(
                f"{'max_args' if mode == '+' else 'min_arg_diff'}() needs a start that does not"
                f" fail, the call with every reducible argument empty, but {self._render(empty)}"
                " fails too; min_args() gives the minimal failing call"
            )
        self._say("Processing " + ", ".join(self._reducible_names()) + "...")
        return dd_stepwise(
            elements, test, mode, observe=self._observe(lambda part: self._render(self._assemble(part)))
        )

    def _assemble(self, elements: Sequence[tuple[str, object]]) -> Arguments:
        """The collected arguments with each reducible one rebuilt from ``elements``."""
        items: dict[str, list[object]] = {name: [] for name in self._reducible_names()}
        for name, item in elements:
            items[name].append(item)
        arguments = dict(self._arguments)
        for name, values in items.items():
            arguments[name] = _assemble(self._arguments[name], values)
        return arguments

    # -- showing ---------------------------------------------------------------

    def _render(self, arguments: Arguments) -> str:
        function, signature = self._require_call()
        positional, keywords = _call_parts(signature, arguments)
        parts = [repr(v) for v in positional] + [f"{k}={v!r}" for k, v in keywords.items()]
        return f"{function.__name__}({', '.join(parts)})"

    def __repr__(self) -> str:
        """The minimised call, e.g. ``mystery(inp='()')``.

        Computing it runs :meth:`min_args` (once; the result is cached), so
        this may raise the same errors.
        """
        if self._function is None or self._exception is None:
            return f"<{type(self).__name__}: no failing call collected>"
        return self._render(self.min_args())


_OWN_GLOBALS = globals()
