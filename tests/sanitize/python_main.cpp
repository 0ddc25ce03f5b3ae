// python3 for the sanitizer builds (Note [sanitizer builds] in CMakeLists.txt): CPython's own main, linked with
// the build's sanitizer runtime. The runtime is then the first thing in the process, as ASan and TSan require,
// and the sanitized extension and libember.so find its symbols here. Debian's python3 cannot do this: the shared
// TSan runtime of clang 14 crashes when preloaded, and a preloaded runtime would follow every child process
// (compilers, make) that the tests start. sys.executable is this program, so Python subprocesses run sanitized
// too. tools/sanitize.sh runs the tests with it.
#include <Python.h>

int main(int argc, char** argv) { return Py_BytesMain(argc, argv); }
