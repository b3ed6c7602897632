"""`import tusk` in the repository root, where Python's first sys.path entry (the current
directory) holds the C++ folder tusk/: the import must give the Python module (or a clear
ImportError), never the C++ folder as an empty namespace package (tusk/__init__.py,
docs/architecture.md)."""
import os
import subprocess
import unittest

SOURCE = os.environ["TUSK_SOURCE_DIR"]
MODULE_DIR = os.environ["PYTHONPATH"].split(os.pathsep)[0]  # <build>/python (CMake sets it)
PROBE = ("import tusk\n"
         "print(getattr(tusk, '__file__', None))\n"
         "print(hasattr(tusk, 'Scenario'))\n")


def import_in_root(pythonpath):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    return subprocess.run(["/usr/bin/python3", "-c", PROBE], cwd=SOURCE, env=env,
                          capture_output=True, text=True, timeout=60)


class TestImportFromRoot(unittest.TestCase):
    def test_documented_pythonpath_gives_the_built_module(self):
        r = import_in_root(MODULE_DIR)
        self.assertEqual(r.returncode, 0, r.stderr)
        path, has_scenario = r.stdout.split()
        self.assertEqual(os.path.realpath(path),
                         os.path.realpath(os.path.join(MODULE_DIR, "tusk", "__init__.py")))
        self.assertEqual(has_scenario, "True")

    def test_without_pythonpath_never_the_cxx_folder(self):
        r = import_in_root(None)
        default_build = os.path.join(SOURCE, "build", "python", "tusk", "__init__.py")
        if os.path.isfile(default_build):
            # scripts/build.sh's module: found without PYTHONPATH.
            self.assertEqual(r.returncode, 0, r.stderr)
            path, has_scenario = r.stdout.split()
            self.assertEqual(os.path.realpath(path), os.path.realpath(default_build))
            self.assertEqual(has_scenario, "True")
        else:
            self.assertNotEqual(r.returncode, 0, r.stdout)
            self.assertIn("ImportError: the Python module tusk is built into build/python",
                          r.stderr)


if __name__ == "__main__":
    unittest.main()
