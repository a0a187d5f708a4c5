// Test player in the original's style that exercises every facility of the headers (spec 7.3 table),
// the way players of the original use them: Matrix<bool> cells bound to bool&, range-for with auto&&,
// iterator arithmetic, std algorithms over a Matrix, copies, out_of_range, Position, utils, Timer.
// Each check prints "FAIL <what>" on failure; the last line of round 0 is "facilities: <n> checks".
#include "../game/Player.hh"
#include <algorithm>
#include <numeric>
#include <sstream>

#define PLAYER_NAME Facilities
using namespace std;

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }
  int checks = 0;
  Matrix<bool> visited;  // a member that lives all game, assigned in round 0

  void check(bool ok, const char* what) {
    ++checks;
    if (!ok) cout << "FAIL " << what << endl;
  }

  template <typename F>
  bool throwsOutOfRange(F f) {
    try {
      f();
    } catch (const std::out_of_range&) {
      return true;
    }
    return false;
  }

  void matrixOfBool() {
    Matrix<bool> m(rows(), cols());
    check(m.rows() == rows() && m.cols() == cols(), "Matrix rows/cols");
    check(std::count(m.begin(), m.end(), true) == 0, "Matrix<bool> starts false");
    bool& cell = m[Position(1, 2)];  // the original's headers hand out a real bool&
    cell = true;
    check(m[Position(1, 2)], "write through bool&");
    bool* address = &m[Position(0, 0)];
    check(address + 1 * cols() + 2 == &m[Position(1, 2)], "cells are contiguous, row-major");
    for (auto&& b : m) b = !b;  // a range-for with auto&& binds bool&
    check(!m[Position(1, 2)] && m[Position(0, 0)], "range-for writes");
    check(std::count(m.cbegin(), m.cend(), false) == 1, "count over const_iterators");
    const Matrix<bool>& view = m;
    const bool& seen = view[Position(1, 2)];
    check(!seen, "const operator[] gives const bool&");
    Matrix<bool> copy(m);
    copy[Position(1, 2)] = true;
    check(!m[Position(1, 2)], "copy constructor copies deeply");
    Matrix<bool> assigned;
    assigned = copy;
    check(assigned[Position(1, 2)] && assigned.rows() == rows(), "copy assignment");
    visited = assigned;
    check(throwsOutOfRange([&] { m[Position(rows(), 0)] = true; }), "row outside throws out_of_range");
    check(throwsOutOfRange([&] { (void)view[Position(0, -1)]; }), "column outside throws out_of_range");
    Matrix<bool> empty;
    check(empty.rows() == 0 && empty.cols() == 0 && empty.begin() == empty.end(), "empty Matrix");
  }

  void matrixIterators() {
    Matrix<int> m(3, 4);
    iota(m.begin(), m.end(), 0);
    check(m[Position(2, 1)] == 9, "iteration is row-major");
    Matrix<int>::iterator it = m.begin();
    it += 5;
    check(*it == 5 && it[2] == 7 && *(it - 1) == 4 && *(it + 1) == 6, "random access");
    check(m.end() - m.begin() == 12 && it > m.begin() && it <= m.end(), "difference and order");
    check(*it++ == 5 && *it == 6 && *--it == 5 && *(it--) == 5 && *it == 4, "increments");
    sort(m.begin(), m.end(), greater<int>());
    check(m[Position(0, 0)] == 11 && m[Position(2, 3)] == 0, "std::sort over a Matrix");
    Matrix<int>::const_iterator c = m.cbegin();
    check(*(c + 11) == 0 && m.cend() - c == 12, "const_iterator");
    Matrix<Position> where(2, 2);
    where[Position(1, 1)] = Position(7, 8);
    check((where.begin() + 3)->x == 7, "iterator operator->");
    static_assert(is_same<iterator_traits<Matrix<bool>::iterator>::reference, bool&>::value, "bool& reference");
    static_assert(is_same<iterator_traits<Matrix<int>::iterator>::iterator_category,
                          random_access_iterator_tag>::value,
                  "random access iterator");
  }

  void positionsAndDirections() {
    Position p(3, 4);
    check(Position() == Position(0, 0), "Position()");
    check(p + Direction::up == Position(2, 4) && p + Direction::DR == Position(4, 5), "Position + Direction");
    check(p - Position(1, 1) == Position(2, 3) && p + Position(1, 1) == Position(4, 5), "Position +/-");
    Position q = p;
    q += Direction::left;
    q += Position(1, 0);
    q -= Position(0, 1);
    check(q == Position(4, 2) && q != p && p < q, "compound assignment and order");
    check(p.to(Position(3, 9)) == Direction::right && p.to(p) == Direction::null, "Position::to");
    ostringstream out;
    out << p << " " << Direction::up << " " << Direction::DL << " " << OrderType::attack << " "
        << Order(3, Direction::left, OrderType::movement);
    check(out.str() == "(3, 4) Up DL attack 3: movement Left", "operator<<");
    Direction a, b;
    tie(a, b) = utils::decompose(Direction::UR);
    check(a == Direction::right && b == Direction::up, "utils::decompose");
    tie(a, b) = utils::perpendiculars(Direction::up);
    check(a == Direction::right && b == Direction::left, "utils::perpendiculars");
    check(utils::invert(Direction::DL) == Direction::UR && utils::isDiagonal(Direction::UL), "invert, isDiagonal");
  }

  void objects() {
    Unit u(4, 1, Position(2, 2), true, 7);
    check(u.id() == 4 && u.player() == 1 && u.upgraded() && u.energy() == 7 && u.type() == UnitType::unit, "Unit");
    Bubble bb(2, 0, Position(1, 1), 3);
    check(bb.roundsToPop() == 3 && bb.player() == 0 && bb.type() == UnitType::bubble && bb.id() == 2, "Bubble");
    Bonus bo(1, Position(5, 5));
    check(bo.id() == 1 && bo.position() == Position(5, 5), "Bonus");
    Order o;
    check(o.unitId == -1 && o.dir == Direction::null, "Order()");
  }

  void gameInfo() {
    vector<int> mine = units(me());
    check(!mine.empty(), "units(me())");
    Unit u = unit(mine[0]);
    check(u.player() == me() && unit(u.position()).id() == u.id(), "unit(uid), unit(pos)");
    Square s = square(u.position());
    Square same(s);
    check(s.hasUnit() && s.unit().id() == u.id() && same == s && !(same != s), "Square");
    check(s.pos() == u.position() && !s.hasBubble() && !s.hasBonus() && !s.empty(), "Square contents");
    check(unit(9999).id() == -1 && bubble(-3).id() == -1, "null objects for bad ids");
    check(posOk(Position(0, 0)) && !posOk(Position(-1, 0)), "posOk");
    check(points(me()) >= 0 && points(99) == -1, "points");
    check(numberOfUnits().size() == 4 && maxNumberOfUnits() > 0, "numberOfUnits, maxNumberOfUnits");
    int r = randomNumber(2, 5);
    vector<int> perm = randomPermutation();
    sort(perm.begin(), perm.end());
    check(r >= 2 && r <= 5 && perm == vector<int>({0, 1, 2, 3}), "random stream");
    double spent = 0;
    {
      Timer t("facilities", &spent, false);
      check(t.getTime() >= 0, "Timer::getTime");
    }
    check(spent >= 0, "Timer accumulates");
    move(mine[0], Direction::up);
  }

  void play() {
    if (round() == 0) {
      matrixOfBool();
      matrixIterators();
      positionsAndDirections();
      objects();
      gameInfo();
      cout << "facilities: " << checks << " checks" << endl;
    } else {
      check(visited.rows() == rows() && visited[Position(1, 2)], "member Matrix persists");
      bool& mark = visited[units(me()).empty() ? Position(0, 0) : unit(units(me())[0]).position()];
      mark = true;
    }
  }
};

REGISTER_PLAYER(PLAYER_NAME);
