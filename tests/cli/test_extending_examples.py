"""The worked examples of docs/extending.md run as written: the format is detected and parsed, the method ranks."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BLOCKS = re.findall(r"```python\n(.*?)```", (REPO / "docs" / "extending.md").read_text(), flags=re.S)

PROGRAM = """
import polars as pl
from scorehouse.aggregators import aggregate
from scorehouse.transforms.parsers import parse_file
{blocks}
import pathlib, tempfile
tmp_path = pathlib.Path(tempfile.mkdtemp())
test_every_cell_lands_as_written(tmp_path)
test_counts_last_places_as_a_hand_count_does()
print("ran")
"""


def test_the_worked_examples_run_and_their_tests_pass():
    assert len(BLOCKS) == 4  # the format's module and test, the method's module and test
    program = PROGRAM.format(blocks="\n".join(b.replace("from __future__ import annotations\n", "") for b in BLOCKS))
    done = subprocess.run([sys.executable, "-c", program], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ran", done.stderr
