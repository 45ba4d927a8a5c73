"""Starting bots in isolation. One interface, several layers; see docs/security.md."""

from judge.sandbox.base import BotProcess, Sandbox, SandboxError, minimal_env
from judge.sandbox.plain import PlainSandbox

__all__ = ["BotProcess", "PlainSandbox", "Sandbox", "SandboxError", "minimal_env"]
