"""``judge sandbox``: what isolation this machine offers, and why a layer is missing."""

from __future__ import annotations

import os

import click

from judge.sandbox.base import LAYER_SUMMARY, LAYERS, SandboxLimits


@click.command("sandbox")
@click.option("--json", "as_json", is_flag=True, help="print the probe's findings as JSON")
def sandbox_command(as_json: bool) -> None:
    """Probe the isolation layers and show which one bots run under by default."""
    import json

    from judge.sandbox.probe import probe
    from judge.sandbox.select import ENV_LAYER, ENV_MIN_LAYER, default_sandbox

    report = probe()
    try:
        chosen: str | None = default_sandbox().layer
        problem = ""
    except Exception as exc:  # an override that cannot be met: show it, do not crash
        chosen, problem = None, str(exc)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "layers": {
                        layer: {
                            "available": report.available.get(layer, False),
                            "detail": report.reasons.get(layer, ""),
                        }
                        for layer in LAYERS
                    },
                    "default": chosen,
                    "strongest": report.strongest,
                    "error": problem or None,
                }
            )
        )
        return
    for layer in LAYERS:
        mark = "yes" if report.available.get(layer) else "no "
        click.echo(f"{mark} {layer:<11} {LAYER_SUMMARY[layer]}")
        click.echo(f"    {report.reasons.get(layer, '')}")
    click.echo(f"strongest available: {report.strongest}")
    for env in (ENV_LAYER, ENV_MIN_LAYER):
        if os.environ.get(env):
            click.echo(f"{env}={os.environ[env]}")
    if chosen:
        click.echo(f"bots run under: {chosen}")
    else:
        click.echo(f"error: {problem}")
    if os.geteuid() == 0:
        click.echo("running as root: bots at namespaces and above run as uid 60000+slot")
    limits = SandboxLimits()
    click.echo(
        f"default limits per bot: memory {limits.memory_mb} MiB (cgroups), "
        f"{limits.pids} processes, {limits.cpu_cores} core(s), CPU {limits.cpu_seconds} s, "
        f"files {limits.file_size_mb} MiB, {limits.open_files} open files, /tmp {limits.tmp_mb} MiB"
    )


COMMANDS = [sandbox_command]
