"""A test's folder removed at any depth, without following a link the candidate left in it.

Standard library only and free of annotations, like ``confine.py``: the
worker of another interpreter (``_worker_main.py``) loads this file by its
path too.
"""

import os
import stat

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def _open_folder(name, parent):
    """The folder ``name`` in ``parent`` (a descriptor; None: ``name`` is a path), opened without following
    a link and made the owner's to list and change: its descriptor, or None (a link, a file, gone)."""
    handle = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    try:
        info = os.fstat(handle)
        if not stat.S_ISDIR(info.st_mode):
            return None
        if stat.S_IMODE(info.st_mode) & 0o700 != 0o700:
            os.chmod("/proc/self/fd/%d" % handle, 0o700)  # the inode held, not a path a link could redirect
        return os.open(".", _DIRECTORY, dir_fd=handle)
    finally:
        os.close(handle)


#: How deep :func:`remove_tree` goes down with a descriptor for each level before it moves the rest up.
_DEPTH = 256
#: Folders moved up so far (their new names are unique in this process).
_MOVED = [0]


def remove_tree(path):
    """Remove the folder ``path`` and all it holds, whatever a candidate left there: any depth, links
    (removed, never followed), folders without permissions. True once it is gone.

    Never recursive, on Python's stack or in descriptors: it goes down a folder's subfolders with a
    descriptor for each level (opened without following a link, made the owner's to list and change),
    unlinking files on the way and removing each folder once it is empty; a folder found :data:`_DEPTH`
    levels down is moved up into ``path`` (a rename within one folder tree) and removed from there
    later. So 30,000 nested folders go as a flat one does, with at most :data:`_DEPTH` descriptors open
    and one move every :data:`_DEPTH` levels.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        try:
            os.unlink(path)
            return True
        except OSError:
            return False
    try:
        top = _open_folder(path, None)
    except OSError:
        return False
    if top is None:
        return False
    try:
        while True:
            names = os.listdir(top)
            if not names:
                break
            progressed = False
            for name in names:
                progressed = _drain(top, name) or progressed
            if not progressed:
                return False
    except OSError:
        return False
    finally:
        os.close(top)
    try:
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


def _drain(top, name):
    """Remove the entry ``name`` of the folder ``top`` (a descriptor), going down its folders (see
    :func:`remove_tree`); whether anything changed."""
    if _unlink(top, name):
        return True
    try:
        first = _open_folder(name, top)
    except OSError:
        return False
    if first is None:
        return False
    levels = [(first, name)]
    changed = False
    try:
        while levels:
            here = levels[-1][0]
            below = None
            for entry in os.listdir(here):
                if _unlink(here, entry):
                    changed = True
                elif below is None:
                    below = entry
            if below is None:  # empty now: remove it from the level above
                os.close(here)
                _, gone = levels.pop()
                try:
                    os.rmdir(gone, dir_fd=levels[-1][0] if levels else top)
                    changed = True
                except OSError:
                    return changed
                continue
            if len(levels) >= _DEPTH:  # deep enough: the rest goes up into the top folder, for later
                _MOVED[0] += 1
                try:
                    os.rename(below, ".astreduce-removed-%d-%d" % (os.getpid(), _MOVED[0]), src_dir_fd=here, dst_dir_fd=top)
                    changed = True
                    continue
                except OSError:
                    return changed
            try:
                opened = _open_folder(below, here)
            except OSError:
                opened = None
            if opened is None:  # a folder that cannot be opened (or a file that will not go): no way down
                return changed
            levels.append((opened, below))
    finally:
        for descriptor, _ in levels:
            os.close(descriptor)
    return changed


def _unlink(folder, name):
    """Unlink the entry ``name`` of ``folder`` (a descriptor) unless it is a folder: whether it is gone."""
    try:
        os.unlink(name, dir_fd=folder)
        return True
    except FileNotFoundError:
        return True
    except OSError:  # a folder (EISDIR), or a file that will not go
        return False
