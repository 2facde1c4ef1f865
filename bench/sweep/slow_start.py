# Bench fixture: a correct server that takes $SLOW_START_MS (default 1000) to start answering, like a heavy import.
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fixtures", "servers"))

from mcpfixture import Server  # noqa: E402


class SlowStart(Server):
    def on_start(self):
        time.sleep(int(os.environ.get("SLOW_START_MS", "1000")) / 1000)


if __name__ == "__main__":
    SlowStart().serve()
