"""``python -m scorehouse``: the ``scorehouse`` command."""

from scorehouse.cli import console_script

if __name__ == "__main__":
    console_script()
