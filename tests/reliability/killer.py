"""Run ``scorehouse ARGS`` and SIGKILL it just before or just after its K-th ``os.replace``.

Every commit of scorehouse (a file written aside, then renamed: :mod:`warehouse.atomic`) and every
move of an inbox file out of the inbox is an ``os.replace``, so killing around the K-th one kills
the run before or after each commit and each move, for real (the process dies at once, as with
``kill -9``: no handler, no cleanup).  Only the renames of this process onto paths under
``$SCOREHOUSE_KILL_UNDER`` (the trial's folder: home and inbox) count: Prefect's own files, and
processes it starts (which inherit the patch), are left alone; with ``$SCOREHOUSE_KILL_ONTO`` set, only
the renames onto paths that contain it (``/raw/packs/``: the K-th raw pack).  ``K = 0`` kills nothing and
reports, on stderr, how many renames the run made.  Usage: ``python killer.py K before|after ARGS...``
"""

import os
import signal
import sys


def main() -> int:
    target, when, args = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    real = os.replace
    calls = [0]
    me, under, onto = os.getpid(), os.environ["SCOREHOUSE_KILL_UNDER"], os.environ.get("SCOREHOUSE_KILL_ONTO", "")

    def replace(src, dst, *, src_dir_fd=None, dst_dir_fd=None):  # noqa: ANN001, ANN202 - os.replace's own signature
        if os.getpid() != me or not os.fspath(dst).startswith(under) or onto not in os.fspath(dst):
            return real(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
        calls[0] += 1
        if calls[0] == target and when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        real(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
        if calls[0] == target and when == "after":
            os.kill(os.getpid(), signal.SIGKILL)

    os.replace = replace
    from scorehouse.cli import main as scorehouse

    code = scorehouse(args)
    print(f"renames={calls[0]}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
