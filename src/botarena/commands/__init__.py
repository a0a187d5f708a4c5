"""The `botarena` commands, one module per group (`botarena.cli` registers them): games and config,
play (and --live, --resume), replay and view, tournament and leaderboard, serve and devops-service,
and the games' own sub-commands (`botarena domains ...`). They read the command line and print;
what they print is built by the layers below (`runner.report`, `tournament.leaderboard_text`)."""
