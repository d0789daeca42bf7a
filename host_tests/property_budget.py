# How many examples a property test (hypothesis) tries: its own number in `make test`, the
# full run CI makes; a tenth of it (at least 25) in `make check`, the edit-test loop
# (MAZE_QUICK=1), which must stay quick enough to run after every edit.
import os

QUICK = os.environ.get("MAZE_QUICK") == "1"


def examples(full):
    return max(25, full // 10) if QUICK else full
