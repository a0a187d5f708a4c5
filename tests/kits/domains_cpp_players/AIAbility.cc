// Test player: walks to bonuses and uses the ability as soon as a unit is upgraded; calls the API
// with bad arguments too (null objects and warnings, never an abort).
#include "../game/Player.hh"

#define PLAYER_NAME Ability
using namespace std;

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }

  void play() {
    if (round() == 0) {
      Unit ghost = unit(12345);
      Bubble none = bubble(Position(-3, 2));
      Square off = square(Position(100, 100));
      int bad_points = points(9);
      size_t no_units = units(-1).size();
      int low = randomNumber(5, 1);
      cerr << "null unit " << ghost.id() << " " << ghost.position() << " bubble " << none.id()
           << " square " << off.painter() << " points " << bad_points << " units " << no_units
           << " rn " << low << " max " << maxNumberOfUnits() << endl;
      printSettings();
      move(-1, Direction::up);
      move(0, static_cast<Direction>(42));
    }
    for (int id : units(me())) {
      Unit u = unit(id);
      if (u.upgraded()) {
        ability(id);
        continue;
      }
      Position p = u.position();
      Position goal(-1, -1);
      int best = 1 << 30;
      for (int x = 0; x < rows(); ++x)
        for (int y = 0; y < cols(); ++y) {
          Square sq = square(Position(x, y));
          if (!sq.hasBonus()) continue;
          int dist = abs(x - p.x) + abs(y - p.y);
          if (dist < best) { best = dist; goal = Position(x, y); }
        }
      if (goal == Position(-1, -1)) continue;
      Direction d = p.to(goal);
      if (utils::isDiagonal(d) && square(p).painter() != me()) d = get<1>(utils::decompose(d));
      move(id, d);
    }
  }
};

REGISTER_PLAYER(PLAYER_NAME);
