"""Picks the sandbox a command uses: the strongest layer the probe found, unless told otherwise."""

from __future__ import annotations

import os

from judge.sandbox.base import LAYERS, Sandbox, SandboxError, SandboxLimits, layer_rank
from judge.sandbox.plain import PlainSandbox

# Names a layer for every command that does not pass --sandbox (e.g. "none" for debugging).
ENV_LAYER = "BOTJUDGE_SANDBOX"
ENV_MIN_LAYER = "BOTJUDGE_MIN_SANDBOX"


# What the bots can still do at each layer below "namespaces" (for warnings and refusals).
WEAKNESS: dict[str, str] = {
    "none": "no isolation: bots run as this user with the network, every file and process "
    "of this machine, and no limits",
    "base": "rlimits and a tree kill only: bots run as this user with the network, every file "
    "of this machine readable and writable, and other processes visible",
}


def weakness(layer: str, *, why_not_stronger: bool = False) -> str | None:
    """A warning line for a layer below namespaces, naming it and what it does not protect;
    ``why_not_stronger``: also why the next layer up is unavailable (how to get it)."""
    if layer not in WEAKNESS:
        return None
    warning = f"sandbox layer {layer!r}: {WEAKNESS[layer]} (see `judge sandbox`)"
    if why_not_stronger:
        from judge.sandbox.probe import probe

        report = probe()
        above = LAYERS[layer_rank(layer) + 1]
        if not report.available.get(above):
            warning += f"; {above}: {report.reasons[above]}"
    return warning


def sandbox_for(layer: str, limits: SandboxLimits | None = None) -> Sandbox:
    """The sandbox of exactly this layer; SandboxError (with the probe's reason) if unavailable."""
    from judge.sandbox.probe import probe

    layer_rank(layer)
    if layer == "none":
        return PlainSandbox()
    from judge.sandbox.isolated import IsolatedSandbox

    report = probe()
    if not report.available.get(layer):
        raise SandboxError(
            f"sandbox layer {layer!r} is not available here: {report.reasons[layer]}"
        )
    return IsolatedSandbox(layer, limits, report.hierarchy)


def default_sandbox(
    layer: str | None = None, minimum: str | None = None, limits: SandboxLimits | None = None
) -> Sandbox:
    """The sandbox to use: ``layer`` (or $BOTJUDGE_SANDBOX) if given, else the strongest available.

    Raises SandboxError if the layer is unknown or unavailable, or below ``minimum``
    (or $BOTJUDGE_MIN_SANDBOX).
    """
    from judge.sandbox.probe import probe

    chosen = layer or os.environ.get(ENV_LAYER) or None
    floor = minimum or os.environ.get(ENV_MIN_LAYER) or None
    try:
        if floor is not None:
            layer_rank(floor)
        if chosen is None:
            chosen = probe().strongest
        rank = layer_rank(chosen)
    except ValueError as exc:
        raise SandboxError(str(exc)) from None
    if floor is not None and rank < layer_rank(floor):
        report = probe()
        why = "" if report.available.get(floor) else f" ({floor}: {report.reasons[floor]})"
        raise SandboxError(f"sandbox layer {chosen!r} is below the required minimum {floor!r}{why}")
    return sandbox_for(chosen, limits)


__all__ = ["LAYERS", "default_sandbox", "sandbox_for"]
