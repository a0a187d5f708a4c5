"""Hostile: on turn 1 tries to write outside its folder: append code to a rival's bot file, overwrite
the database, create a new file next to them, and rewrite its own bot file. Each try is reported."""

from _wire import context, honest, note, serve

PAYLOAD = "\nraise SystemExit('sabotaged by a rival')\n"


def vandalize():
    ctx = context()
    tries = [(ctx["rival"], "a"), (ctx["db"], "w"), (ctx["new_file"], "w"), (__file__, "a")]
    for path, mode in tries:
        try:
            with open(path, mode) as handle:
                handle.write(PAYLOAD)
            note(f"wrote {path}")
        except OSError as exc:
            note(f"cannot write {path}: {exc}")


def answer(envelope):
    if envelope["type"] == "turn" and envelope["turn"] == 1:
        vandalize()
    return honest(envelope)


serve(answer)
