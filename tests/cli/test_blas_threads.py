"""The ``scorehouse`` command runs NumPy on one OpenBLAS thread, and Polars' allocator with its pages kept 5 s,
unless the user chose otherwise: both set before NumPy and Polars are first imported (they read them then)."""

import os
import subprocess
import sys

import pytest

PROBE = ("import os, sys; from scorehouse import cli; "
         "cli.main = lambda: print(os.environ.get('OPENBLAS_NUM_THREADS'), 'numpy' in sys.modules) or 0; "
         "cli.console_script()")
ALLOCATOR_PROBE = ("import os, sys; from scorehouse import cli; "
                   "cli.main = lambda: print(os.environ.get('_RJEM_MALLOC_CONF'), 'polars' in sys.modules) or 0; "
                   "cli.console_script()")


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("2", "2")])
def test_the_command_sets_one_blas_thread_before_numpy_unless_given(given, expected):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == [expected, "False"]  # set, and NumPy not imported yet: OpenBLAS reads it on import


@pytest.mark.parametrize(("given", "expected"), [(None, "dirty_decay_ms:5000,muzzy_decay_ms:5000"),
                                                 ("dirty_decay_ms:0", "dirty_decay_ms:0")])
def test_the_command_sets_polars_allocator_before_polars_unless_given(given, expected):
    env = {k: v for k, v in os.environ.items() if k != "_RJEM_MALLOC_CONF"}
    if given is not None:
        env["_RJEM_MALLOC_CONF"] = given
    out = subprocess.run([sys.executable, "-c", ALLOCATOR_PROBE], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == [expected, "False"]


def test_the_c_allocator_keeps_freed_memory_where_it_is_glibc():
    """glibc (the Linux this project runs on) takes the options; elsewhere nothing is set."""
    probe = "from scorehouse import cli; print(cli.keep_freed_memory())"
    took = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert took == [str(sys.platform == "linux")]
