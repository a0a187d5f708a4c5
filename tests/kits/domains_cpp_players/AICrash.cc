// Test player: throws in round 1 (CRASHED bot_error, asked again) and aborts the process in round 3.
#include "../game/Player.hh"
#include <cstdlib>
#include <stdexcept>

#define PLAYER_NAME Crash
using namespace std;

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }

  void play() {
    if (round() == 1) throw runtime_error("deliberate");
    if (round() == 3) abort();
    for (int id : units(me())) move(id, Direction::up);
  }
};

REGISTER_PLAYER(PLAYER_NAME);
