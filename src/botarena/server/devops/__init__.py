"""The Devops Game's web parts, beside the pure game package `botarena.games.devops`:

    codes.py            the spec 7.5 bonus-code routes of a live match (FastAPI), thread-safe around
                        the game's plain `CodeBook`; `botarena.server.live.LIVE_ROUTES` names them
    starter_service.py  the spec 7.6 starter logic HTTP service (FastAPI on uvicorn) around any
                        `FactionLogic`: `botarena devops-service`

FastAPI is imported where used, so importing this package needs no server extra.
"""
