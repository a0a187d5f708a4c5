// Test player in the original's style: moves every unit (toward unpainted ground), uses Matrix and Timer.
#include "../game/Player.hh"

#define PLAYER_NAME Mover
using namespace std;

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }
  int calls = 0;  // member variables persist between rounds, as in the original

  void play() {
    ++calls;
    double spent = 0;
    Timer t("mover", &spent, false);
    Matrix<int8_t> seen(rows(), cols());
    vector<Direction> dirs = {Direction::up, Direction::down, Direction::left, Direction::right};
    for (int id : units(me())) {
      Position p = unit(id).position();
      seen[p] = 1;
      Direction best = dirs[randomNumber(0, 3)];
      for (Direction d : dirs) {
        Position q = p + d;
        if (posOk(q) && square(q).painter() != me() && square(q).empty()) best = d;
      }
      move(id, best);
    }
    cout << "mover round " << round() << " calls " << calls << endl;  // goes to stderr
  }
};

REGISTER_PLAYER(PLAYER_NAME);
