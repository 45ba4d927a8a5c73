"""The child that analyses one .py bot source (started by ``judge/analysis.py``).

``python -m judge.analysis_child GAME ADAPTER STEM TRANSLATIONS CPU_SECONDS MEMORY_BYTES``
reads the source on stdin and prints one JSON object: ``{"analysis": {...}, "translation":
PATH or null}``, or ``{"refused": REASON}`` for a source Python cannot parse for its depth.
Its limits are set before the source is read: past the CPU seconds the kernel ends it
(SIGXCPU), past the address space an allocation fails (MemoryError).
"""

from __future__ import annotations

import json
import resource
import sys
from dataclasses import asdict
from pathlib import Path


def main(argv: list[str]) -> int:
    game, adapter, stem, translations, cpu_seconds, memory_bytes = argv
    cpu, memory = int(cpu_seconds), int(memory_bytes)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    data = sys.stdin.buffer.read()

    from judge.adapters import analyse_source

    try:
        analysis, translation = analyse_source(
            data, stem, game, adapter or None, Path(translations)
        )
    except RecursionError:
        answer: dict[str, object] = {"refused": "it is nested too deeply for Python to parse"}
    except MemoryError:
        answer = {
            "refused": "it is nested too deeply for Python to parse, or too large to parse "
            f"in {memory >> 20} MiB"
        }
    else:
        path = str(translation) if translation is not None else None
        answer = {"analysis": asdict(analysis), "translation": path}
    sys.stdout.write(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
