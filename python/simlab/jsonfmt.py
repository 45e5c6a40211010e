"""study.json as a person would write it: two-space indentation, and every
list or object that fits on its line written on one line."""
import json

WIDTH = 100


def _one_line(v):
    return json.dumps(v, ensure_ascii=False, separators=(", ", ": "))


def dumps(value):
    """value as indented JSON text, ending with a newline."""
    return _dump(value, 0, 0, True) + "\n"


def _dump(v, indent, used, top=False):
    """v at indentation indent, after used characters of its line."""
    if not isinstance(v, (dict, list)) or not v:
        return _one_line(v)
    flat = _one_line(v)
    if not top and used + len(flat) <= WIDTH:
        return flat
    pad = " " * (indent + 2)
    if isinstance(v, dict):
        lines = []
        for k, x in v.items():
            key = _one_line(str(k)) + ": "
            lines.append(pad + key + _dump(x, indent + 2,
                                           len(pad) + len(key) + 1))
        return "{\n" + ",\n".join(lines) + "\n" + " " * indent + "}"
    lines = [pad + _dump(x, indent + 2, len(pad) + 1) for x in v]
    return "[\n" + ",\n".join(lines) + "\n" + " " * indent + "]"
