"""Packages Ember for pip: `pip install --no-build-isolation .` (see pyproject.toml and README.md).

The build step drives CMake exactly as `make` does (same build directory, default build/, so nothing is
compiled twice), then lays out the wheel:

    ember/                 the pure-Python package, from python/ember
    ember/_C*.so           the extension, with RUNPATH $ORIGIN/lib
    ember/lib/libember.so  the C++ library, and ember/lib/cmake/Ember/ (find_package(Ember))
    ember/include/ember/   every public header, so extensions compile against the installed package

The library, headers and CMake package come from `cmake --install`, the same rules a C++ install uses.
Environment: EMBER_BUILD_DIR (CMake build directory, default build), EMBER_CMAKE_ARGS (extra arguments for
the first configure).
"""
import glob
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

from setuptools import Distribution, find_packages, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"  # the extension is built for Debian's Python (DESIGN.md)


def run(cmd, **kw):
    print("+ " + " ".join(shlex.quote(str(c)) for c in cmd), flush=True)
    subprocess.run(cmd, check=True, **kw)


class BuildWithCMake(build_py):
    """build_py that also builds libember.so and ember._C with CMake and adds them, the headers and the CMake
    package to the built tree."""

    def run(self):
        super().run()
        build_dir = os.path.join(ROOT, os.environ.get("EMBER_BUILD_DIR", "build"))
        if not os.path.exists(os.path.join(build_dir, "build.ninja")):
            run(["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                 f"-DPython3_EXECUTABLE={PYTHON}", "-DEMBER_BUILD_PYTHON=ON",
                 *shlex.split(os.environ.get("EMBER_CMAKE_ARGS", ""))])
        env = dict(os.environ, CCACHE_BASEDIR=ROOT)
        run(["cmake", "--build", build_dir, "--target", "ember", "ember_python"], env=env)

        pkg = os.path.join(self.build_lib, "ember")
        for sub in ("lib", "include"):
            shutil.rmtree(os.path.join(pkg, sub), ignore_errors=True)
        with tempfile.TemporaryDirectory() as prefix:
            run(["cmake", "--install", build_dir, "--prefix", prefix], stdout=subprocess.DEVNULL)
            shutil.copytree(os.path.join(prefix, "include"), os.path.join(pkg, "include"))
            shutil.copytree(os.path.join(prefix, "lib"), os.path.join(pkg, "lib"), symlinks=False)

        exts = glob.glob(os.path.join(ROOT, "python", "ember", "_C*.so"))
        if len(exts) != 1:
            sys.exit(f"setup.py: expected one python/ember/_C*.so after the build, found {exts}")
        dest = os.path.join(pkg, os.path.basename(exts[0]))
        shutil.copyfile(exts[0], dest)
        os.chmod(dest, 0o755)
        # In the source tree the extension also finds libember.so in the build directory; installed, it must
        # find only the copy beside it. CMake's own ELF editor sets the RUNPATH (no patchelf needed).
        build_temp = self.get_finalized_command("build").build_temp
        os.makedirs(build_temp, exist_ok=True)
        script = os.path.join(build_temp, "set_rpath.cmake")
        with open(script, "w") as f:
            f.write('file(RPATH_SET FILE "${FILE}" NEW_RPATH "$ORIGIN/lib")\n')
        run(["cmake", f"-DFILE={dest}", "-P", script])


class BinaryDistribution(Distribution):
    """The wheel holds compiled code: tag it for this Python and platform, not py3-none-any."""

    def has_ext_modules(self):
        return True


os.makedirs(os.path.join(ROOT, "build-pip"), exist_ok=True)
setup(
    packages=find_packages("python", include=["ember", "ember.*"]),
    package_dir={"": "python"},
    cmdclass={"build_py": BuildWithCMake},
    distclass=BinaryDistribution,
    # setuptools' own build tree must not land in CMake's build/ (its build/lib holds libember.so).
    options={"build": {"build_base": "build-pip"}, "egg_info": {"egg_base": "build-pip"}},
    zip_safe=False,
)
