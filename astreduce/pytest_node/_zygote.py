"""A warm pytest: configured once, forked for every test (run under the project's interpreter).

``python _zygote.py`` starts in a copy of the project and does once what
every ``python -m pytest NODE`` run does before it imports the files under
reduction: it imports pytest and its plugins, parses the arguments and the
project's configuration, imports the initial ``conftest.py`` files (those
not under reduction), runs every plugin's ``pytest_configure``, and imports
the third-party modules the project's files import, and makes the session
with its fixture manager (which walks every plugin for fixtures). Then, for
every test, it brings its folder to the candidate's files and forks a child,
which runs that session (collection, the node, the reports) and exits. It
confines itself first, before it imports pytest, as every test is
confined (``confine.py``): everything it runs of the project's, its
configuration and conftests included, runs in the room. A test
costs a fork and a session instead of an interpreter start and all those
imports: on a project using the hypothesis plugin, 0.8 s of a 1.2 s run.
What the children would each do again (compile the project's modules, its
regular expressions, the methods ``dataclasses`` writes...) the zygote
learns once for them: ``_zygote_caches.py``.

Conftests under reduction (``defer``) are not in the folder while the
parent configures: the child imports them, as pytest imports the conftests
it meets while collecting, before the session starts. They are deferred
only when they need nothing of the early start (options, plugins, early
hooks); the parent checks on the original that a warm run ends as a plain
run does, and runs plain processes otherwise.

The protocol, one JSON object per line: the parent writes the setup on
standard input and reads ``{"ready": ...}`` (or ``{"error": ...}``) on
the descriptor that was standard output; then each request
``{"id", "write": {path: text}, "delete": [path], "timeout", "cpu"}`` is
answered with ``{"id", "ending", "exit", "failures", "seconds", "cpu",
"dirty"}`` (a request's ``cpu``, when not null, is the CPU seconds its
child may spend: a loop that lost its exit ends there, not at the
timeout), and ``{"cancel": id}`` ends the running test at once. A
request with ``"learn": true`` also imports here, after its test, the
modules from outside the project that the test's session imported (a
plugin that imports its library only for its summary, as hypothesis's
does, would otherwise cost every test that import), and answers with
their names (``"modules"``), for the next zygotes to import while starting.
A request's ``"trace"``, the coverage tracer's text, starts that tracer in
the child before its session, and the answer's ``"lines"`` are the lines
it executed in the project's files, by path. A
request ``{"hold": [[name, path]], "write", "delete", "preimport"}`` forks
a holder that imports those modules of the project and answers
``{"held": [name], "error"}``; it serves the tests from then on (a test's
``"drop"`` names the held modules its child imports again, and with
``"project"`` its answer names the project's modules it imported) until the next
hold request, which it hands back (``_zygote_held.py``). The
tests' own output goes to the setup's ``log`` file, truncated for each
test. Standard library and pytest only, and no annotations: this file runs
under any interpreter pytest supports.
"""

import gc
import json
import os
import select
import signal
import sys
import time


_LOADED = {}


def load_private(name, path):
    """The module of the file at ``path``, loaded once under the private name ``_astreduce_NAME`` (this file
    runs as a script, by path, and the project may have a module of any name): the children inherit it."""
    if name not in _LOADED:
        import importlib.util

        spec = importlib.util.spec_from_file_location("_astreduce_" + name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _LOADED[name] = module
    return _LOADED[name]


_caches = load_private("zygote_caches", os.path.join(os.path.dirname(os.path.abspath(__file__)), "_zygote_caches.py"))
Caches, warm_caches = _caches.Caches, _caches.warm_caches
_held = load_private("zygote_held", os.path.join(os.path.dirname(os.path.abspath(__file__)), "_zygote_held.py"))

#: Names a deferred conftest must not define: pytest reads them before the session starts.
EARLY_HOOKS = ("pytest_addoption", "pytest_plugins", "pytest_addhooks", "pytest_load_initial_conftests",
               "pytest_cmdline_parse", "pytest_cmdline_preparse", "pytest_cmdline_main")


class Lines(object):
    """Lines read from a descriptor without blocking past what select() said is there."""

    def __init__(self, fd):
        self.fd = fd
        self.buffer = b""
        self.closed = False

    def pending(self):
        return b"\n" in self.buffer

    def read(self):
        """Read once (select() said the descriptor is readable); False at the end of the input."""
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            self.closed = True
        self.buffer += chunk
        return bool(chunk)

    def next(self):
        """The next whole line, or None."""
        line, sep, rest = self.buffer.partition(b"\n")
        if not sep:
            return None
        self.buffer = rest
        return line

    def wait_line(self):
        while not self.pending():
            if self.closed or not self.read():
                return None
        return self.next()


def send(out, message):
    data = (json.dumps(message) + "\n").encode("utf-8", "surrogateescape")
    while data:
        data = data[os.write(out, data):]


def apply_files(write, delete):
    """Bring the folder (the working directory) to the candidate: write these files, delete those."""
    for path in delete:
        try:
            os.unlink(path)
        except OSError:
            pass
    for path, text in write.items():
        folder = os.path.dirname(path)
        if folder and not os.path.isdir(folder):
            os.makedirs(folder)
        if os.path.islink(path):
            os.unlink(path)
        with open(path, "wb") as handle:
            handle.write(text.encode("utf-8", "surrogateescape"))


def folders_state():
    """Every folder's modification time: a test that creates or deletes a file shows here. Walked with a
    list, not recursively: a test may leave folders nested deeper than Python's stack."""
    state = {}
    todo = ["."]
    while todo:
        folder = todo.pop()
        try:
            state[folder] = os.stat(folder).st_mtime_ns
            with os.scandir(folder) as entries:
                todo.extend(entry.path for entry in entries if entry.is_dir(follow_symlinks=False))
        except OSError:
            pass
    return state


def project_files(root):
    """The files under ``root`` that this process has imported (modules), relative, with ``/``."""
    found = set()
    prefix = root.rstrip(os.sep) + os.sep
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and os.path.abspath(path).startswith(prefix):
            found.add(os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/"))
    return sorted(found)


def preimport(names, root):
    """Import the modules the project imports from outside its folder; the names imported."""
    import importlib
    import importlib.util

    done = []
    prefix = root.rstrip(os.sep) + os.sep
    for name in names:
        if name in sys.modules:
            continue
        try:
            spec = importlib.util.find_spec(name.split(".")[0])
            origin = getattr(spec, "origin", None) or ""
            locations = list(getattr(spec, "submodule_search_locations", None) or [])
            paths = [p for p in [origin] + locations if p and os.path.isabs(p)]
            if spec is None or any(os.path.abspath(p).startswith(prefix) for p in paths):
                continue  # the project's own module, or nothing
            importlib.import_module(name)
            done.append(name)
        except BaseException:  # a module that fails to import here fails in the test too, where it counts
            continue
    return done


def limit(limits):
    import resource

    for name, value in limits.items():
        which = getattr(resource, name, None)
        if which is None:
            continue
        try:
            soft, hard = resource.getrlimit(which)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (value, hard))
        except (ValueError, OSError):
            pass


def outside(names, root):
    """The names of modules that are not the project's own (their files are not under ``root``)."""
    prefix = root.rstrip(os.sep) + os.sep
    found = []
    for name in names:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if name == "__main__" or name.startswith("_astreduce_") or module is None:
            continue
        if isinstance(path, str) and os.path.abspath(path).startswith(prefix):
            continue
        locations = list(getattr(module, "__path__", None) or [])
        if any(isinstance(p, str) and os.path.abspath(p).startswith(prefix) for p in locations):
            continue
        found.append(name)
    return found


def load_confine(path):
    """astreduce's ``run/confine.py``, loaded before the first fork."""
    return load_private("confine", path)


def confine_zygote(settings):
    """Confine this process, before it imports pytest, the project's plugins and conftests, as astreduce
    confines every test: to the zygote's folder (its copy of the project, its cache and temporary files,
    its log) and what ``--allow-write`` adds, with no network unless allowed. It keeps the capabilities of
    its own namespaces for its children's (a room, in ``confine.py``'s words)."""
    if settings:
        folder = os.path.dirname(os.getcwd())
        _LOADED["confine"].confine(folder, settings.get("writable", []), [], bool(settings.get("network")), False, True)


def confine_child(settings):
    """Confine this test within the zygote's room: the same folder, no capabilities (a child of a room, in
    ``confine.py``'s words)."""
    if settings:
        folder = os.path.dirname(os.getcwd())
        _LOADED["confine"].confine(folder, settings.get("writable", []), [], bool(settings.get("network")), True)


def child(config, probe, request, report_fd, setup):
    """In the forked child: run the session for the node and write the probe's records; never returns."""
    result = {"ending": "crash"}
    before = set(sys.modules)
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _LOADED["confine"].die_with_parent()
        try:
            os.ftruncate(1, 0)
        except OSError:
            pass
        limit(setup.get("limits", {}))
        confine_child(setup.get("confine"))
        sys.dont_write_bytecode = True
        os.environ["ASTREDUCE_PYTEST_ZYGOTE"] = "1"
        if setup.get("defer"):
            config.pluginmanager._dirpath2confmods.clear()
            config.pytest_load_initial_conftests(early_config=config)
        config._do_configure = lambda: None  # configured in the parent already
        # no header: the plugins' versions it prints read their metadata again in every child (3 to 5 ms a test on
        # pint), for output nobody reads
        config.option.no_header = True
        use_prepared(setup.get("prepared"))
        unsafe = reimport_dropped(request, setup)
        traced = start_tracer(request.get("trace"))
        try:
            status = config.hook.pytest_cmdline_main(config=config)
        finally:
            config._ensure_unconfigure()
        result = {
            "ending": "ok", "exit": int(status), "failures": list(probe.FAILURES), "cpu": sum(os.times()[:2]),
            "unsafe": unsafe,
        }
        if traced is not None:
            result["lines"] = dict((path, sorted(lines)) for path, lines in traced.items())
        if request.get("project"):  # the parent holds modules: which of the project's this test imported
            result["project"] = _held.project_modules(os.getcwd())
        setup["caches"].report(result, [n for n in list(sys.modules) if n not in before])
        if request.get("learn"):
            result["modules"] = outside([n for n in list(sys.modules) if n not in before], os.getcwd())
    except BaseException as error:  # pytest's own machinery failed (a usage error, a conftest that fails)
        result = {"ending": "error", "detail": "%s: %s" % (type(error).__name__, str(error)[:2000]), "failures": list(probe.FAILURES)}
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        try:
            send(report_fd, result)
        finally:
            os._exit(0)


def prepared_session(config):
    """The session and its fixture manager, made here once for every child: the manager walks every plugin
    held here for fixtures as it is made (10 to 15 ms of a warm test on pint), and what it finds is the same in
    every child. A child's conftests and test module register later, and are walked there. None where this
    pytest's session is not made through ``Session.from_config`` (before pytest 7) or cannot be made here."""
    try:
        import pytest
        import _pytest.fixtures as fixtures
        from _pytest.main import Session
        if int(pytest.__version__.split(".")[0]) < 7:
            return None
    except (ImportError, ValueError):
        return None
    session = None
    try:
        session = Session.from_config(config)
        return session, fixtures.FixtureManager(session)
    except BaseException:  # the child makes its own, as pytest does
        for plugin in (session, config.pluginmanager.get_plugin("funcmanage")):
            if plugin is not None and config.pluginmanager.is_registered(plugin):
                config.pluginmanager.unregister(plugin)
        return None


def use_prepared(prepared):
    """In the child: pytest's next session is the one the zygote made, with its fixture manager. Once only: a
    test that runs pytest in its own process (``pytester``) gets sessions of its own."""
    if prepared is None:
        return
    import _pytest.fixtures as fixtures
    from _pytest.main import Session
    session, manager = prepared
    from_config, make_manager = Session.__dict__["from_config"], fixtures.FixtureManager

    def prepared_session(cls, config):
        Session.from_config = from_config
        return session if cls is Session and config is session.config else cls.from_config(config)

    def prepared_manager(made_for):
        fixtures.FixtureManager = make_manager
        return manager if made_for is session else make_manager(made_for)

    Session.from_config = classmethod(prepared_session)
    fixtures.FixtureManager = prepared_manager


def start_tracer(text):
    """The coverage tracer (``run/coverage.py``'s, handed over as text) started in this child, before its session
    imports the project; the dict of the lines it records by file (None: no tracer asked)."""
    if not text:
        return None
    space = {"__name__": "_astreduce_tracer", "__file__": os.path.join(os.getcwd(), "sitecustomize.py")}
    exec(compile(text, space["__file__"], "exec"), space)
    return space["_LINES"]


def reimport_dropped(request, setup):
    """In a child of a holder: drop the held modules the candidate changed (and their importers) and import them
    again; the kept modules whose state that changed (``_zygote_held.py``)."""
    held = setup.get("held")
    dropped = set(request.get("drop") or ())
    if not held or not dropped:
        return []
    _held.drop_modules(dropped)
    return _held.reimport([n for n in held if n in dropped], [n for n in held if n not in dropped])


#: Seconds between two looks at a test's CPU, when it has a budget of CPU.
CPU_POLL = 0.02

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_of(pid):
    """The CPU seconds process ``pid`` has spent (its threads included), from /proc; 0 where it cannot be read.
    As ``run/spare.py``'s ``child_cpu_seconds``: this file runs under the project's interpreter, without astreduce."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            fields = handle.read().rpartition(b")")[2].split()
        return (int(fields[11]) + int(fields[12])) / float(_TICKS)
    except (OSError, ValueError, IndexError):
        return 0.0


def run_one(config, probe, request, setup, requests, out):
    """One test: the folder brought to the candidate, a child forked, its result (or its end) awaited."""
    apply_files(request.get("write", {}), request.get("delete", []))
    caches = setup["caches"]
    caches.written(request.get("write", {}))
    before = folders_state()
    started = time.time()
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        child(config, probe, request, write_fd, setup)
    os.close(write_fd)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    deadline = started + float(request.get("timeout", 600.0))
    budget = request.get("cpu")
    data = b""
    answer = None
    while answer is None:
        waiting = [read_fd] + ([] if requests.closed else [requests.fd])
        left = deadline - time.time()
        wait = left if budget is None else min(left, CPU_POLL)
        ready = select.select(waiting, [], [], max(0.0, wait))[0] if left > 0 else []
        if not ready and left > wait:  # a look at the CPU it spent, the deadline still ahead
            if cpu_of(pid) > budget:
                answer = {"ending": "timeout", "detail": "spent over %g s of CPU" % budget}
            continue
        if read_fd in ready:
            chunk = os.read(read_fd, 1 << 20)
            data += chunk
            if not chunk:
                try:
                    answer = json.loads(data.decode("utf-8", "surrogateescape")) if data else {"ending": "crash"}
                except ValueError:
                    answer = {"ending": "crash"}
        elif requests.fd in ready:
            if not requests.read():
                answer = {"ending": "cancelled"}
            while answer is None and requests.pending():
                line = requests.next()
                try:
                    message = json.loads(line.decode("utf-8"))
                except ValueError:
                    continue
                if message.get("cancel") == request.get("id"):
                    answer = {"ending": "cancelled"}
        elif not ready:
            answer = {"ending": "timeout", "detail": "ran over %g s" % float(request.get("timeout", 600.0))}
    os.close(read_fd)
    try:
        os.killpg(pid, signal.SIGKILL)  # what the test left running
    except OSError:
        pass
    _, status = os.waitpid(pid, 0)
    if answer.get("ending") == "crash":
        if os.WIFSIGNALED(status):
            answer["detail"] = "killed by %s" % signal.Signals(os.WTERMSIG(status)).name
        else:
            answer["detail"] = "exited with status %d without a report" % os.WEXITSTATUS(status)
    answer["id"] = request.get("id")
    answer["seconds"] = time.time() - started
    answer["dirty"] = folders_state() != before
    taken = caches.take(answer)  # what the child compiled: here from now on
    if answer.get("modules"):
        # what the session imported lazily (a plugin's summary importing hypothesis): once, here
        answer["modules"] = preimport(answer["modules"], os.getcwd())
        warm_caches()
    send(out, answer)
    caches.learn(taken)


def serve_tests():
    out = os.dup(1)
    requests = Lines(os.dup(0))  # pytest's capture puts /dev/null on 0 (and files on 1 and 2) while it runs
    line = requests.wait_line()
    if line is None:
        return
    setup = json.loads(line.decode("utf-8"))
    log = os.open(setup["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    root = os.getcwd()
    sys.path[0:1] = [root]  # as ``python -m pytest`` in the project's folder: not this file's folder
    sys.path[1:1] = setup.get("path", [])
    load_confine(setup["confine_module"]).die_with_parent()
    try:
        confine_zygote(setup.get("confine"))
    except BaseException as error:  # a path --allow-write names that cannot be opened: plain runs say it
        send(out, {"error": "configure", "detail": "cannot confine: %s: %s" % (type(error).__name__, error)})
        return
    try:
        import pytest
        from _pytest.config import _prepareconfig
    except BaseException as error:
        send(out, {"error": "pytest", "detail": "%s: %s" % (type(error).__name__, error)})
        return
    os.environ["PYTEST_VERSION"] = pytest.__version__
    try:
        config = _prepareconfig(list(setup["args"]))
        config._do_configure()
    except BaseException as error:  # a conftest or a plugin that fails, a usage error: plain runs say it
        send(out, {"error": "configure", "detail": "%s: %s" % (type(error).__name__, str(error)[:2000])})
        return
    probe = sys.modules.get("_astreduce_pytest_probe")
    if probe is None:
        send(out, {"error": "configure", "detail": "the probe plugin did not load"})
        return
    imported = preimport(setup.get("preimport", []), root)
    warm_caches()
    inputs = set(project_files(root))
    inipath = getattr(config, "inipath", None)
    if inipath is not None and str(inipath).startswith(root + os.sep):
        inputs.add(os.path.relpath(str(inipath), root).replace(os.sep, "/"))
    send(out, {
        "ready": True, "pytest": pytest.__version__, "python": sys.executable,
        "inputs": sorted(inputs), "preimported": len(imported),
    })
    setup["caches"] = Caches(root, config)  # what the children would each do again (not part of the JSON setup)
    setup["prepared"] = prepared_session(config)
    if hasattr(gc, "freeze"):
        gc.freeze()  # the children leave the parent's objects alone: fewer pages copied
    answer_requests(config, probe, setup, requests, out)


def answer_requests(config, probe, setup, requests, out):
    """Answer requests until the input ends; a holder hands the next hold request back to the zygote and ends."""
    while True:
        line = requests.wait_line()
        if line is None:
            return
        try:
            request = json.loads(line.decode("utf-8", "surrogateescape"))
        except ValueError:
            continue
        if "cancel" in request:
            continue  # for a test that ended already
        if "hold" in request:
            if setup.get("handoff") is not None:
                hand_back(setup["handoff"], line + b"\n" + requests.buffer)
            hold_modules(config, probe, request, setup, requests, out)
            continue
        run_one(config, probe, request, setup, requests, out)


def hand_back(fd, data):
    """In a holder: give the zygote the requests not yet answered, and end."""
    try:
        while data:
            data = data[os.write(fd, data):]
    finally:
        os._exit(0)


def hold_modules(config, probe, request, setup, requests, out):
    """Bring the folder to the request's tree and fork a holder that imports its modules (``_zygote_held.py``) and
    serves the tests from then on; wait until it hands the requests back (the next hold) or the input ends."""
    apply_files(request.get("write", {}), request.get("delete", []))
    setup["caches"].written(request.get("write", {}))
    if not request["hold"]:
        send(out, {"held": []})
        return
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_fd)
            _LOADED["confine"].die_with_parent()
            held, error = _held.hold(request["hold"], os.getcwd())
            preimport(request.get("preimport", []), os.getcwd())
            if error is not None:
                send(out, {"held": [], "error": error})
                hand_back(write_fd, requests.buffer)
            setup["handoff"] = write_fd
            setup["held"] = held
            if hasattr(gc, "freeze"):
                gc.freeze()
            send(out, {"held": held})
            answer_requests(config, probe, setup, requests, out)
        finally:
            os._exit(0)
    os.close(write_fd)
    data = b""
    while True:
        try:
            chunk = os.read(read_fd, 1 << 20)  # until the holder hands back or ends
        except InterruptedError:
            continue
        if not chunk:
            break
        data += chunk
    os.close(read_fd)
    os.waitpid(pid, 0)
    requests.buffer = data


if __name__ == "__main__":
    serve_tests()
