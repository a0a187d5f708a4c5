// Test player: attacks any adjacent enemy unit or bubble, otherwise walks toward the nearest enemy.
#include "../game/Player.hh"

#define PLAYER_NAME Attacker
using namespace std;

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }

  void play() {
    vector<Direction> all = {Direction::up, Direction::down, Direction::left, Direction::right,
                             Direction::UL, Direction::UR, Direction::DL, Direction::DR};
    for (int id : units(me())) {
      Position p = unit(id).position();
      bool done = false;
      for (Direction d : all) {
        Position q = p + d;
        if (!posOk(q)) continue;
        Square sq = square(q);
        if ((sq.hasUnit() && sq.unit().player() != me()) || sq.hasBubble()) {
          attack(id, d);
          done = true;
          break;
        }
      }
      if (done) continue;
      Position target(-1, -1);
      int best = 1 << 30;
      for (int pl = 0; pl < 4; ++pl) {
        if (pl == me()) continue;
        for (int other : units(pl)) {
          Position q = unit(other).position();
          int dist = abs(q.x - p.x) + abs(q.y - p.y);
          if (dist < best) { best = dist; target = q; }
        }
      }
      if (target != Position(-1, -1)) {
        Direction d = p.to(target);
        if (utils::isDiagonal(d) && square(p).painter() != me()) d = get<0>(utils::decompose(d));
        move(id, d);
      }
      attack(id, Direction::up);  // a second order for the unit: ignored with a warning
    }
  }
};

REGISTER_PLAYER(PLAYER_NAME);
