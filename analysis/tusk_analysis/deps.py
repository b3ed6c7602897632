"""The Python packages tusk_analysis needs, each named by the Debian package that brings it:
a missing one is a one-line message on stderr and exit status 2 (bad environment, as bad input),
not a traceback. Imported first by the package (__init__.py)."""

import importlib
import sys

#: module -> the Debian package (scripts/install-deps.sh installs them all).
DEBIAN = {"numpy": "python3-numpy", "pandas": "python3-pandas",
          "matplotlib": "python3-matplotlib", "scipy": "python3-scipy"}


def require(*modules, who="tusk"):
    """Import each module; on the first missing one print
    `WHO: Python module M is missing from PYTHON: install Debian's PKG ...` and exit 2."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            sys.stderr.write(
                "%s: the Python module %s is missing from %s: install Debian's %s "
                "(apt-get install %s, or scripts/install-deps.sh) and use /usr/bin/python3\n"
                % (who, name, sys.executable, DEBIAN.get(name, "python3-" + name),
                   DEBIAN.get(name, "python3-" + name)))
            sys.exit(2)
