"""Schema strings in PyTorch's grammar, parsed as far as the generator needs (a small mirror of
ember/dispatch/Schema.cpp): `name.overload(Type name=default, *, ...) -> Returns`."""
import re


class Arg:
    def __init__(self, type_, name, default, kwarg_only, alias):
        self.type, self.name, self.default, self.kwarg_only, self.alias = type_, name, default, kwarg_only, alias

    @property
    def mutable(self):
        return self.alias is not None and self.alias.endswith("!")


class Schema:
    def __init__(self, text):
        self.text = text
        m = re.match(r"^\s*([\w:]+)(?:\.(\w+))?\s*\((.*)\)\s*->\s*(.+?)\s*$", text)
        if not m:
            raise SystemExit(f"gen_ops: malformed schema: {text}")
        self.name, self.overload, args, rets = m.group(1), m.group(2) or "", m.group(3), m.group(4)
        self.args = []
        kw = False
        for a in split_top(args):
            a = a.strip()
            if not a:
                continue
            if a == "*":
                kw = True
                continue
            default = None
            if "=" in a:
                a, default = a.split("=", 1)
                default = default.strip()
            t, n = a.rsplit(None, 1)
            t, alias = strip_alias(t.strip())
            self.args.append(Arg(t, n, default, kw, alias))
        rets = rets.strip()
        if rets.startswith("("):
            rets = rets[1:-1]
        self.rets = []
        for r in split_top(rets):
            r = r.strip()
            if not r:
                continue
            parts = r.split()
            t, alias = strip_alias(parts[0])
            self.rets.append(Arg(t, parts[1] if len(parts) > 1 else "", None, False, alias))

    def full(self):
        name = self.name if "::" in self.name else "aten::" + self.name
        return name + ("." + self.overload if self.overload else "")


def split_top(s):
    out, depth, cur = [], 0, ""
    for c in s:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += c
    out.append(cur)
    return out


def strip_alias(t):
    m = re.match(r"^Tensor\((\w+!?)(?:\s*->\s*\*)?\)(.*)$", t)
    if m:
        return "Tensor" + m.group(2), m.group(1)
    return t, None

