#!/bin/sh
# Fails when a pure library (common, stimuli, experiment, analysis) mentions
# SDL or reads the clock: only app/ may use SDL; the clock is read in one
# platform file, common/sim_clock.c, which only app/ and serve/ call.
root=${1:-.}
status=0
# serve/ (`simlab serve`) builds without SDL2 and keeps the library rules
# except the clock, which it reads through common/sim_clock.h.
hits=$(grep -rnE '#include *[<"]SDL|\bSDL_[A-Za-z]|\b(clock_gettime|gettimeofday)\b|\b(exit|longjmp|sprintf|strcpy|strcat)\(' \
       "$root/serve" --include='*.c' --include='*.h' 2>/dev/null)
if [ -n "$hits" ]; then
    echo "serve/ uses SDL, reads the clock itself or exits:"; echo "$hits"
    status=1
fi
for dir in common stimuli experiment analysis; do
    [ -d "$root/$dir" ] || continue
    hits=$(grep -rnE '#include *[<"]SDL|\bSDL_[A-Za-z]' "$root/$dir" \
           --include='*.c' --include='*.h' 2>/dev/null)
    if [ -n "$hits" ]; then
        echo "SDL used outside app/:"; echo "$hits"; status=1
    fi
    hits=$(grep -rnE '\b(clock_gettime|gettimeofday|time\(NULL\)|time\(0\)|sim_clock_(mono_ns|real_ms|abs_after|real)\()' \
           "$root/$dir" --include='*.c' --include='*.h' \
           | grep -v '/main\.c:' | grep -v '^[^:]*common/sim_clock\.[ch]:' \
           | grep -v 'clock-ok' 2>/dev/null)
    if [ -n "$hits" ]; then
        echo "clock read in a pure library:"; echo "$hits"; status=1
    fi
    hits=$(grep -rnE '\b(exit|longjmp|sprintf|strcpy|strcat)\(' "$root/$dir" \
           --include='*.c' --include='*.h' | grep -v '/main\.c:' \
           | grep -v 'longjmp-ok' 2>/dev/null)
    if [ -n "$hits" ]; then
        echo "exit/longjmp/sprintf/strcpy/strcat in a library:"; echo "$hits"
        status=1
    fi
done

# Include direction: each library includes only its own headers and those of
# the libraries below it (common < stimuli < experiment < serve < app;
# analysis and the demo generator stand apart on common). Every project header is named
# from the one include root ("stimuli/study.h").
allowed() {
    case $1 in
    common) echo "common" ;;
    stimuli) echo "common stimuli" ;;
    stimuli/gen) echo "common stimuli/gen" ;;
    experiment) echo "common stimuli experiment" ;;
    serve) echo "common stimuli experiment serve" ;;
    analysis) echo "common analysis" ;;
    app) echo "common stimuli experiment analysis serve app" ;;
    esac
}
for dir in common stimuli stimuli/gen experiment serve analysis app; do
    [ -d "$root/$dir" ] || continue
    ok=$(allowed $dir)
    for f in $(find "$root/$dir" -maxdepth 1 -name '*.[ch]'); do
        grep -nE '^#include "' "$f" | while IFS= read -r line; do
            inc=$(echo "$line" | sed -E 's/.*#include "([^"]+)".*/\1/')
            case $inc in
            */*) ;;
            *) echo "$f:${line%%:*}: '$inc' is not named from the include root"
               continue ;;
            esac
            lib=${inc%/*}
            good=0
            for a in $ok; do [ "$lib" = "$a" ] && good=1; done
            [ $good -eq 1 ] || echo "$f:${line%%:*}: $dir/ may not include '$inc'"
        done
    done
done > "${TMPDIR:-/tmp}/simlab_layers.$$"
if [ -s "${TMPDIR:-/tmp}/simlab_layers.$$" ]; then
    echo "include direction:"; cat "${TMPDIR:-/tmp}/simlab_layers.$$"; status=1
fi
rm -f "${TMPDIR:-/tmp}/simlab_layers.$$"

# Inside each directory the modules include one another one way only: a
# module is a .c file with its .h (and its internal NAME_int.h); a circle
# of includes between modules (a.c includes b.h, b.c includes a.h, or a
# longer loop) fails, with the loop named.
circles=$(python3 - "$root" <<'PY'
import os, re, sys
root = sys.argv[1]
def module(name):
    return name[:-4] if name.endswith("_int") else name
for d in ("common", "stimuli", "stimuli/gen", "experiment", "serve", "analysis", "app"):
    path = os.path.join(root, d)
    if not os.path.isdir(path):
        continue
    deps = {}
    inc = re.compile(r'\s*#\s*include\s+"%s/([A-Za-z0-9_]+)\.h"' % re.escape(d))
    for f in sorted(os.listdir(path)):
        if not f.endswith((".c", ".h")):
            continue
        m = module(f[:-2])
        deps.setdefault(m, set())
        with open(os.path.join(path, f), errors="replace") as fh:
            for line in fh:
                hit = inc.match(line)
                if hit and module(hit.group(1)) != m:
                    deps[m].add(module(hit.group(1)))
    # a depth-first search reports each loop once, by its smallest member
    state, stack, seen = {}, [], set()
    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(deps.get(m, ())):
            if state.get(n) == 1:
                loop = stack[stack.index(n):]
                key = frozenset(loop)
                if key not in seen:
                    seen.add(key)
                    print("%s/: %s -> %s" % (d, " -> ".join(loop), n))
            elif n in deps and not state.get(n):
                visit(n)
        stack.pop()
        state[m] = 2
    for m in sorted(deps):
        if not state.get(m):
            visit(m)
PY
)
if [ -n "$circles" ]; then
    echo "circles of includes inside a directory:"; echo "$circles"; status=1
fi

[ $status -eq 0 ] && echo "layers ok"
exit $status
