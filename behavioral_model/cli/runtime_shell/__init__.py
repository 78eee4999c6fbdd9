"""The simple_switch_CLI command language carried out over P4Runtime (the ``cli``
subcommand): ``shell`` reads and dispatches commands; ``tables``, ``profiles``,
``externs`` and ``pre`` carry them out; ``syntax`` parses their arguments and
``context`` holds the session, the P4Info and the client-side handle numbers."""

from behavioral_model.cli.runtime_shell.shell import RuntimeShell

__all__ = ["RuntimeShell"]
