// Domains C++ player kit (spec 7.3): directions, positions, units, bubbles, bonuses, orders, squares,
// Matrix and utils. Written for botarena from the spec; no file of the original is copied here.
#ifndef DOMAINS_KIT_UTILITY_HH
#define DOMAINS_KIT_UTILITY_HH

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <queue>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "Timer.hh"

enum Direction { null = 0, up = 1, down = 2, left = 3, right = 4, UL = 5, UR = 6, DL = 7, DR = 8 };
std::ostream& operator<<(std::ostream& os, Direction d);

namespace utils {
std::tuple<Direction, Direction> decompose(Direction d);
std::tuple<Direction, Direction> perpendiculars(Direction d);
Direction invert(Direction d);
bool isDiagonal(Direction d);
}  // namespace utils

struct Position {
  int8_t x, y;
  Position() : x(0), y(0) {}
  Position(int x_, int y_) : x(static_cast<int8_t>(x_)), y(static_cast<int8_t>(y_)) {}
  bool operator==(const Position& o) const { return x == o.x && y == o.y; }
  bool operator!=(const Position& o) const { return !(*this == o); }
  bool operator<(const Position& o) const { return x != o.x ? x < o.x : y < o.y; }
  Position operator+(const Direction& d) const;
  Position operator+(const Position& o) const { return Position(x + o.x, y + o.y); }
  Position operator-(const Position& o) const { return Position(x - o.x, y - o.y); }
  Position& operator+=(const Direction& d) { return *this = *this + d; }
  Position& operator+=(const Position& o) { return *this = *this + o; }
  Position& operator-=(const Position& o) { return *this = *this - o; }
  // dir(this -> p) for any p; null when p == *this.
  Direction to(Position p);
};
std::ostream& operator<<(std::ostream& os, const Position& p);

enum UnitType { unit, bubble, bonus };
enum OrderType { movement, attack, ability };
std::ostream& operator<<(std::ostream& os, OrderType t);

struct Unit {
  Unit() : id_(-1), player_(-1), pos_(-1, -1), upgraded_(false), energy_(0) {}
  Unit(int id) : id_(id), player_(-1), pos_(-1, -1), upgraded_(false), energy_(0) {}
  Unit(int id, int player, const Position& p, bool upgraded = false, int energy = 0)
      : id_(id), player_(player), pos_(p), upgraded_(upgraded), energy_(energy) {}
  int id() const { return id_; }
  int player() const { return player_; }
  Position position() const { return pos_; }
  bool upgraded() const { return upgraded_; }
  int energy() const { return energy_; }
  UnitType type() const { return UnitType::unit; }

 private:
  int id_, player_;
  Position pos_;
  bool upgraded_;
  int energy_;
};

struct Bubble {
  Bubble() : id_(-1), player_(-1), pos_(-1, -1), rtp_(0) {}
  Bubble(int id) : id_(id), player_(-1), pos_(-1, -1), rtp_(0) {}
  Bubble(int id, int player, Position p, int roundsToPop) : id_(id), player_(player), pos_(p), rtp_(roundsToPop) {}
  int roundsToPop() const { return rtp_; }
  int player() const { return player_; }
  UnitType type() const { return UnitType::bubble; }
  Position position() const { return pos_; }
  int id() const { return id_; }

 private:
  int id_, player_;
  Position pos_;
  int rtp_;
};

struct Bonus {
  Bonus() : id_(-1), pos_(-1, -1) {}
  Bonus(Position p) : id_(-1), pos_(p) {}
  Bonus(int id, Position p) : id_(id), pos_(p) {}
  int id() const { return id_; }
  Position position() const { return pos_; }

 private:
  int id_;
  Position pos_;
};

struct Order {
  int unitId;
  Direction dir;
  OrderType type;
  Order() : unitId(-1), dir(Direction::null), type(OrderType::movement) {}
  Order(int id, Direction d, OrderType t) : unitId(id), dir(d), type(t) {}
};
std::ostream& operator<<(std::ostream& os, const Order& o);

class GameInfo;

struct Square {
  Square()
      : pos_(-1, -1), painter_(-1), drawer_(-1), unitDrawer_(-1), ability_(0), hasUnit_(false),
        hasBubble_(false), hasBonus_(false) {}
  Square(const Square&) = default;
  Square& operator=(const Square&) = default;
  Position pos() const { return pos_; }
  bool painted() const { return painter_ >= 0; }
  int painter() const { return painter_; }
  bool drawn() const { return drawer_ >= 0; }
  int drawer() const { return drawer_; }
  int unitDrawer() const { return unitDrawer_; }
  bool ability() const { return ability_ > 0; }
  int roundsUntilAbilityEnd() const { return ability_; }
  bool empty() const { return !hasUnit_ && !hasBubble_ && !hasBonus_; }
  bool hasUnit() const { return hasUnit_; }
  Unit unit() const { return unit_; }
  bool hasBonus() const { return hasBonus_; }
  Bonus bonus() const { return bonus_; }
  bool hasBubble() const { return hasBubble_; }
  Bubble bubble() const { return bubble_; }
  // Compares what the export compares (7.4): content identities, painter, trail player, flag.
  bool operator==(const Square& o) const {
    return unit_.id() == o.unit_.id() && bubble_.id() == o.bubble_.id() && bonus_.id() == o.bonus_.id() &&
           painter_ == o.painter_ && drawer_ == o.drawer_ && ability() == o.ability();
  }
  bool operator!=(const Square& o) const { return !(*this == o); }

 private:
  friend class GameInfo;
  Position pos_;
  int painter_, drawer_, unitDrawer_, ability_;
  bool hasUnit_, hasBubble_, hasBonus_;
  Unit unit_;
  Bubble bubble_;
  Bonus bonus_;
};

template <typename T>
class Matrix {
 public:
  typedef typename std::vector<T>::iterator iterator;
  typedef typename std::vector<T>::const_iterator const_iterator;
  Matrix() : rows_(0), cols_(0) {}
  Matrix(int rows, int cols) : rows_(rows), cols_(cols), data_(static_cast<size_t>(rows) * cols) {}
  Matrix(const Matrix&) = default;
  Matrix& operator=(const Matrix&) = default;
  T& operator[](Position p) { return data_[index(p)]; }
  const T& operator[](Position p) const { return data_[index(p)]; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  iterator begin() { return data_.begin(); }
  iterator end() { return data_.end(); }
  const_iterator begin() const { return data_.begin(); }
  const_iterator end() const { return data_.end(); }
  const_iterator cbegin() const { return data_.cbegin(); }
  const_iterator cend() const { return data_.cend(); }

 private:
  size_t index(Position p) const {
    if (p.x < 0 || p.y < 0 || p.x >= rows_ || p.y >= cols_) throw std::out_of_range("Matrix: position outside");
    return static_cast<size_t>(p.x) * cols_ + p.y;
  }
  int rows_, cols_;
  std::vector<T> data_;
};

#endif
