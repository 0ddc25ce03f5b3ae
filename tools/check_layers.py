#!/usr/bin/env python3
"""Fails when an #include crosses one of Ember's layers the wrong way (the table "Layers and what each may
use" of DESIGN.md).

Every file under ember/ belongs to the layer of its folder (ember/jit/ir/Graph.h is in jit, ember/kernels/cpu/
isa/vec_loops.cpp in kernels/cpu). An `#include "ember/<layer>/..."` (or <...>, or a relative path that lands
in another layer) is allowed when <layer> is the file's own layer or one the file's layer may use, directly or
through the layers below it. Nothing under ember/ may include Python.h or pybind11; python/csrc may include any
ember header. The link lists of CMakeLists.txt (`ember_layer(<name> ... USES ember_<layer> ...)`) obey the
same table. Prints file:line and the rule broken for each violation and exits 1 if there are any.

    /usr/bin/python3 tools/check_layers.py [ROOT]
"""
import os
import re
import sys

# What each layer may include directly (DESIGN.md); "and below" is the transitive closure of this table.
MAY_USE = {
    "base": [],
    "core": ["base"],
    "dispatch": ["core"],
    "ops": ["dispatch"],
    "kernels/cpu": ["ops"],
    "backends": ["kernels/cpu"],  # each ember/backends/<lib>, see layer_of()
    "autograd": ["ops"],
    "serialize": ["dispatch"],
    "nn": ["autograd", "ops", "serialize"],
    "optim": ["autograd", "ops", "serialize"],
    "data": ["autograd", "ops", "serialize"],
    "jit": ["dispatch", "ops", "serialize"],
    "api": None,  # everything
}
SOURCE_EXTS = (".h", ".hpp", ".cpp", ".cc", ".inc")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
PYTHON_RE = re.compile(r"^(Python\.h|pybind11/|numpy/)")


def closure(layer):
    """The layers `layer` may include, itself included."""
    if MAY_USE[layer] is None:
        return set(MAY_USE)
    seen, todo = {layer}, list(MAY_USE[layer])
    while todo:
        l = todo.pop()
        if l not in seen:
            seen.add(l)
            todo.extend(MAY_USE[l])
    return seen


def layer_of(path):
    """The layer of a path relative to the repository root ("ember/ops/shape.h" -> "ops"), or None for a path
    outside ember/, or "?<folder>" for a folder of ember/ that the table does not know."""
    parts = path.split("/")
    if path == "ember/ember.h":  # the umbrella header forwards to ember/api/ember.h
        return "api"
    if len(parts) < 3 or parts[0] != "ember":
        return None
    if parts[1] == "kernels":
        return "kernels/cpu" if len(parts) >= 4 and parts[2] == "cpu" else "?" + "/".join(parts[1:3])
    if parts[1] in MAY_USE:
        return parts[1]
    return "?" + parts[1]


def included_path(root, src, quote, name):
    """The repository-relative path an include names, or None when it is not one of Ember's files."""
    if name.startswith("ember/"):
        return os.path.normpath(name)
    if quote == '"':  # relative to the including file
        p = os.path.normpath(os.path.join(os.path.dirname(src), name))
        if p.startswith("ember/") and os.path.exists(os.path.join(root, p)):
            return p
    return None


def check_file(root, rel, errors):
    src_layer = layer_of(rel)
    in_ember = rel.startswith("ember/")
    if src_layer and src_layer.startswith("?"):
        errors.append(f"{rel}:1: folder ember/{src_layer[1:]} is not a layer of DESIGN.md "
                      f"(add it to the table and to tools/check_layers.py)")
        return
    allowed = closure(src_layer) if src_layer else None
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            quote, name = m.groups()
            if in_ember and PYTHON_RE.match(name):
                errors.append(f"{rel}:{lineno}: includes {name}: nothing under ember/ may use Python "
                              f"(only python/csrc does)")
                continue
            target = included_path(root, rel, quote, name)
            if target is None or allowed is None:
                continue
            tgt_layer = layer_of(target)
            if tgt_layer is None:
                continue
            if tgt_layer.startswith("?"):
                errors.append(f"{rel}:{lineno}: includes {name} from ember/{tgt_layer[1:]}, "
                              f"which is not a layer of DESIGN.md")
            elif tgt_layer not in allowed:
                may = ", ".join(sorted(allowed - {src_layer})) or "the C++ standard library only"
                errors.append(f"{rel}:{lineno}: layer {src_layer} includes {name} from layer {tgt_layer}; "
                              f"{src_layer} may use: {may}")


def target_layer(name):
    """The layer of a CMake layer target name ("kernels_cpu" and "isa_avx2" -> "kernels/cpu")."""
    if name in MAY_USE:
        return name
    head = name.split("_")[0]
    if head in ("kernels", "isa"):
        return "kernels/cpu"
    if head in ("jit", "backends"):
        return head
    return None


def check_cmake(root, errors):
    """Checks the USES list of every ember_layer() call in CMakeLists.txt against the table."""
    path = os.path.join(root, "CMakeLists.txt")
    if not os.path.exists(path):
        return
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"^[ \t]*ember_layer\(([^)]*)\)", text, re.M):
        lineno = text.count("\n", 0, m.start()) + 1
        tokens = m.group(1).split()
        name = re.sub(r"\$\{\w+\}", "x", tokens[0])
        layer = target_layer(name)
        if layer is None:
            errors.append(f"CMakeLists.txt:{lineno}: ember_layer({tokens[0]}) is not a layer of DESIGN.md")
            continue
        uses, in_uses = [], False
        for t in tokens[1:]:
            if t in ("SOURCES", "OPTIONS", "USES"):
                in_uses = t == "USES"
            elif in_uses and t.startswith("ember_"):
                uses.append(t)
        for u in uses:
            used = target_layer(u[len("ember_"):])
            if used is None or used not in closure(layer):
                errors.append(f"CMakeLists.txt:{lineno}: layer {layer} ({tokens[0]}) links {u}; "
                              f"{layer} may use: {', '.join(sorted(closure(layer) - {layer})) or 'nothing'}")


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    errors, count = [], 0
    for top in ("ember", "python/csrc"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for fn in sorted(filenames):
                if fn.endswith(SOURCE_EXTS):
                    count += 1
                    check_file(root, os.path.relpath(os.path.join(dirpath, fn), root), errors)
    check_cmake(root, errors)
    for e in errors:
        print(e)
    if errors:
        print(f"check_layers: {len(errors)} include(s) or link(s) cross a layer the wrong way (see DESIGN.md, "
              f"'Layers and what each may use')")
        return 1
    print(f"check_layers: {count} files and the CMake link lists follow the layer rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
