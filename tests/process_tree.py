"""The processes of a session, for the tests that stop a command and require that no process of
it is left (pool workers, forkserver, resource tracker, engines started in its session)."""

from pathlib import Path


def session_members(sid: int) -> list[int]:
    """Processes whose session id is ``sid`` (read from /proc/<pid>/stat), zombies excluded."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()    # after "pid (comm) "
        if fields[0] != "Z" and int(fields[3]) == sid:   # state, ppid, pgrp, session
            members.append(int(entry.name))
    return members
