#!/bin/sh
# Fails when a pure library (common, stimuli, experiment, analysis) mentions
# SDL or reads the clock: only app/ may do either.
root=${1:-.}
status=0
for dir in common stimuli experiment analysis; do
    [ -d "$root/$dir" ] || continue
    hits=$(grep -rnE '#include *[<"]SDL|\bSDL_[A-Za-z]' "$root/$dir" \
           --include='*.c' --include='*.h' 2>/dev/null)
    if [ -n "$hits" ]; then
        echo "SDL used outside app/:"; echo "$hits"; status=1
    fi
    hits=$(grep -rnE '\b(clock_gettime|gettimeofday|time\(NULL\)|time\(0\))' \
           "$root/$dir" --include='*.c' --include='*.h' \
           | grep -v '/main\.c:' | grep -v 'clock-ok' 2>/dev/null)
    if [ -n "$hits" ]; then
        echo "clock read in a pure library:"; echo "$hits"; status=1
    fi
    hits=$(grep -rnE '\b(exit|longjmp|sprintf|strcpy|strcat)\(' "$root/$dir" \
           --include='*.c' --include='*.h' | grep -v '/main\.c:' 2>/dev/null)
    if [ -n "$hits" ]; then
        echo "exit/longjmp/sprintf/strcpy/strcat in a library:"; echo "$hits"
        status=1
    fi
done
[ $status -eq 0 ] && echo "layers ok"
exit $status
