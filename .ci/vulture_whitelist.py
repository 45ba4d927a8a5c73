"""Names used where vulture cannot see it (`uv run vulture`, .ci/run): read by a framework,
a protocol or a bot by name. Each line is a use; the comment says who uses it."""

from types import SimpleNamespace

_ = SimpleNamespace()

# Python 2's API the translation gives a bot's code (bots/adapters/py2libs.py, py2order.py).
_.getstate
_.setstate
_.jumpahead
_.decodestring
_.encodestring
_.iterkeys
_.itervalues
_.iteritems
_.has_key
_.intersection
_.intersection_update
# importlib's loader protocol (py2compat's import hook).
_.create_module
_.fullname
# Signal handlers' and __exit__'s parameters; a roshambolo original's play(a_id, b_id).
_.signum
_.frame
_.tb
_.a_id
_.b_id
# A Kaggle agent reads its observation's attributes (games/rps/kaggle.py, tests).
_.lastOpponentAction
_.remainingOverageTime
# hatchling finds the build hook by its class and name (hatch_build.py).
_.LauncherBuildHook
_.PLUGIN_NAME
_.initialize
# click calls a group's methods (judge/cli.py's LazyGroup).
_.list_commands
_.format_commands
# tarfile writes a member's attributes (judge/packing.py, judge/executors/artifacts.py).
_.mtime
_.gid
_.gname
_.uname
_.pax_headers
# subprocess.Popen's own attributes, set for a process it did not start (forkserver.py).
_._child_created
_._waitpid_lock
_._sigint_wait_secs
_._communication_started
_._input
_._closed_child_pipe_fds
_.text_mode
_.encoding
# anycorn reads its Config's attributes (judge/server/serve.py); sqlite3 its connection's.
_.accesslog
_.errorlog
_.graceful_timeout
_.keep_alive_timeout
_.h11_max_incomplete_size
_.websocket_max_message_size
_.include_server_header
_.row_factory
# pydantic fields read as JSON by clients and replays.
_.revoked
_.judge_version
_.resamples
_.left_today
# structlog passes a processor its logger, used or not.
_.logger
# http.server calls its handler's methods (tests/test_replays_browser.py).
_.log_message
_.do_GET
# A fixture asked for by name, for its effect (tests/test_sandbox_start.py).
_.cgroups_layer
