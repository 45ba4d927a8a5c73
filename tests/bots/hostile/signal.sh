#!/bin/sh
# Hostile rps bot: signals the judge (SIGUSR1, which the test counts), then plays rock.
if kill -USR1 "$HOSTILE_JUDGE_PID" 2>/dev/null; then
    echo "signal: delivered" >&2
else
    echo "signal: refused" >&2
fi
while IFS= read -r line; do
    case "$line" in
    END*) exit 0 ;;
    .) printf 'R\n.\n' ;;
    esac
done
