// PlayerDemo in the original's style (spec section 10): random orthogonal steps on even rounds.
#include "../game/Player.hh"

#define PLAYER_NAME Demo
using namespace std;

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }

  void play() {
    if (round() % 2) return;
    for (int id : units(me())) {
      int r = randomNumber(1, 4);
      move(id, static_cast<Direction>(r));
    }
  }
};

REGISTER_PLAYER(PLAYER_NAME);
