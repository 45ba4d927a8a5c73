#!/bin/sh
# An rps bot in POSIX shell: plays scissors, paper, rock in turn.
turn=0
while IFS= read -r line; do
    case "$line" in
    END*) exit 0 ;;
    .)
        case $((turn % 3)) in
        0) echo S ;;
        1) echo P ;;
        *) echo R ;;
        esac
        echo .
        turn=$((turn + 1))
        ;;
    esac
done
