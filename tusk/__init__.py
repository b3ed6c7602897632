"""Not a Python package: tusk/ holds the C++ sources of the command line and its library.

Python puts the current directory first on sys.path, so `import tusk` in the repository root
would find this folder before the Python module `tusk` (python/tusk, built with its extension
into build/python/tusk) and, without this file, import it as an empty namespace package. This
file hands the import over to the real module: the first `tusk` package with an __init__.py on
sys.path outside the repository root (PYTHONPATH=build/python, as docs/scripting.md says), else
the one scripts/build.sh builds into build/python. Without either, ImportError says what to do.
"""
import importlib.util
import os
import sys

_SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _real_module_init():
    """The __init__.py of the Python module tusk, or None."""
    for entry in sys.path:
        folder = os.path.abspath(entry or os.getcwd())
        init = os.path.join(folder, "tusk", "__init__.py")
        if folder != _SOURCE_ROOT and os.path.isfile(init):
            return init
    init = os.path.join(_SOURCE_ROOT, "build", "python", "tusk", "__init__.py")
    return init if os.path.isfile(init) else None


def _load_real_module():
    init = _real_module_init()
    if init is None:
        raise ImportError(
            "the Python module tusk is built into build/python by scripts/build.sh: build it, "
            "and import it with PYTHONPATH=build/python (tusk/ here holds the C++ sources)",
            name="tusk")
    spec = importlib.util.spec_from_file_location(
        "tusk", init, submodule_search_locations=[os.path.dirname(init)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["tusk"] = module  # the import statement returns what sys.modules holds
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules["tusk"]
        raise


_load_real_module()
