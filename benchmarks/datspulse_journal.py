"""DatsPulse server: the cost of journalling a running round (issue 16), per transition.

A real-time round of `--teams` teams (preset `test`) is driven as the server drives it
(`RoundDriver.advance` then `record`), each team's orders coming from the `forager` starter bot
through the real §5 validator. After each step the round's journal (`botarena.core.journal`) is
synced and flushed, as the server's recorder thread does. Printed: median and max of `record()` (the
step as the server records it anyway) and of the journal's sync + flush, the journal's size, and the
time to rebuild the round from it (`resume.rebuild_round`, what a restarted server does).

    .venv/bin/python benchmarks/datspulse_journal.py [--teams 50] [--steps 40]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from botarena.clients.datspulse import make_bot
from botarena.core.journal import ReplayJournal
from botarena.games.datspulse.config import datspulse_config
from botarena.games.datspulse.engine import Round
from botarena.server.datspulse.driver import RoundDriver
from botarena.server.datspulse.resume import rebuild_round, resume_header


def _ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:7.2f} ms  max {max(values) * 1000:7.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--teams", type=int, default=50)
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    config = datspulse_config("test", {"turns": args.steps + 10})
    names = [f"team-{i:02d}" for i in range(args.teams)]
    round_ = Round.create(config, 1, names)
    driver = RoundDriver(round_, round_number=1, preset="test", match_id="bench-1")
    bots = [make_bot("forager", seat) for seat in range(args.teams)]
    header = resume_header(series="bench", number=1, name="bench-1", teams=names, seed=1, preset="test")
    path = Path(tempfile.mkdtemp()) / "bench-1.json.gz"
    journal = ReplayJournal(path, resume=header, flush_every_s=0.0)
    journal.begin(driver.replay)
    recorded: list[float] = []
    synced: list[float] = []
    for _ in range(args.steps):
        for seat, bot in enumerate(bots):
            round_.submit(seat, bot.act({**round_.arena(seat, 2.0), "errors": []}))
        driver.advance()
        began = time.perf_counter()
        driver.record()
        middle = time.perf_counter()
        journal.sync()
        recorded.append(middle - began)
        synced.append(time.perf_counter() - middle)
    journal.close()
    began = time.perf_counter()
    rebuilt = rebuild_round(
        path, series="bench", name="bench-1", number=1, teams=names, seed=1, config=config
    )
    rebuild_s = time.perf_counter() - began
    assert rebuilt.steps == args.steps
    print(f"DatsPulse journal: {args.teams} teams, {args.steps} steps (forager orders)")
    print(f"  record() per step (the server's own):    {_ms(recorded)}")
    print(f"  journal sync + flush per step:          {_ms(synced)}")
    size = path.stat().st_size
    print(f"  journal size: {size / 1e6:.2f} MB ({size / args.steps / 1e3:.1f} kB/step)")
    per_step = rebuild_s / args.steps * 1000
    print(f"  rebuild from the journal (restart): {rebuild_s:.2f} s ({per_step:.1f} ms/step)")


if __name__ == "__main__":
    main()
