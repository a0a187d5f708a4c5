// Domains C++ player kit (spec 7.3): directions, positions, units, bubbles, bonuses, orders, squares,
// Matrix and utils. Written for botarena from the spec; no file of the original is copied here.
#ifndef DOMAINS_KIT_UTILITY_HH
#define DOMAINS_KIT_UTILITY_HH

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <iostream>
#include <map>
#include <queue>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
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

// Random-access iterator over a Matrix's cells in row-major order. V is T (iterator) or const T
// (const_iterator); it walks a plain array, so `*it` is a real `V&` for every T, bool included.
template <typename V>
class MatrixIterator {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = typename std::remove_const<V>::type;
  using difference_type = std::ptrdiff_t;
  using pointer = V*;
  using reference = V&;

  MatrixIterator() : at_(nullptr) {}
  MatrixIterator(pointer at) : at_(at) {}
  // An iterator converts to a const_iterator (not the other way round).
  template <typename W, typename = typename std::enable_if<std::is_same<const W, V>::value>::type>
  MatrixIterator(const MatrixIterator<W>& other) : at_(other.operator->()) {}

  reference operator*() const { return *at_; }
  pointer operator->() const { return at_; }
  reference operator[](difference_type n) const { return at_[n]; }
  MatrixIterator& operator++() { ++at_; return *this; }
  MatrixIterator operator++(int) { MatrixIterator before = *this; ++at_; return before; }
  MatrixIterator& operator--() { --at_; return *this; }
  MatrixIterator operator--(int) { MatrixIterator before = *this; --at_; return before; }
  MatrixIterator& operator+=(difference_type n) { at_ += n; return *this; }
  MatrixIterator& operator-=(difference_type n) { at_ -= n; return *this; }
  MatrixIterator operator+(difference_type n) const { return MatrixIterator(at_ + n); }
  MatrixIterator operator-(difference_type n) const { return MatrixIterator(at_ - n); }
  friend MatrixIterator operator+(difference_type n, const MatrixIterator& it) { return it + n; }
  difference_type operator-(const MatrixIterator& o) const { return at_ - o.at_; }
  bool operator==(const MatrixIterator& o) const { return at_ == o.at_; }
  bool operator!=(const MatrixIterator& o) const { return at_ != o.at_; }
  bool operator<(const MatrixIterator& o) const { return at_ < o.at_; }
  bool operator>(const MatrixIterator& o) const { return at_ > o.at_; }
  bool operator<=(const MatrixIterator& o) const { return at_ <= o.at_; }
  bool operator>=(const MatrixIterator& o) const { return at_ >= o.at_; }

 private:
  pointer at_;
};

// A rows x cols grid indexed by Position (x = row, y = column), stored as one owned array of T.
// Not a std::vector: std::vector<bool> packs bits and hands out proxies, so `bool& b = m[p]` and
// `for (auto&& b : m)` would break for Matrix<bool>; here every T, bool included, gives real T&.
// Cells start value-initialised (0, false, default-constructed).
template <typename T>
class Matrix {
 public:
  typedef MatrixIterator<T> iterator;
  typedef MatrixIterator<const T> const_iterator;

  Matrix() : rows_(0), cols_(0), cells_(nullptr) {}
  Matrix(int rows, int cols)
      : rows_(rows < 0 ? 0 : rows), cols_(cols < 0 ? 0 : cols), cells_(allocate(count(rows_, cols_))) {}
  Matrix(const Matrix& other) : rows_(other.rows_), cols_(other.cols_), cells_(allocate(other.size())) {
    std::copy(other.cells_, other.cells_ + other.size(), cells_);
  }
  Matrix(Matrix&& other) noexcept : rows_(other.rows_), cols_(other.cols_), cells_(other.cells_) {
    other.rows_ = other.cols_ = 0;
    other.cells_ = nullptr;
  }
  Matrix& operator=(const Matrix& other) {
    if (this != &other) {
      Matrix copy(other);
      swap(copy);
    }
    return *this;
  }
  Matrix& operator=(Matrix&& other) noexcept {
    swap(other);
    return *this;
  }
  ~Matrix() { delete[] cells_; }

  T& operator[](Position p) { return cells_[index(p)]; }
  const T& operator[](Position p) const { return cells_[index(p)]; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }

  iterator begin() { return iterator(cells_); }
  iterator end() { return iterator(cells_ + size()); }
  const_iterator begin() const { return const_iterator(cells_); }
  const_iterator end() const { return const_iterator(cells_ + size()); }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }

 private:
  static size_t count(int rows, int cols) { return static_cast<size_t>(rows) * static_cast<size_t>(cols); }
  static T* allocate(size_t n) { return n == 0 ? nullptr : new T[n](); }
  size_t size() const { return count(rows_, cols_); }
  void swap(Matrix& other) noexcept {
    std::swap(rows_, other.rows_);
    std::swap(cols_, other.cols_);
    std::swap(cells_, other.cells_);
  }
  // The bot's own container: a position outside it throws std::out_of_range, as in the original.
  size_t index(Position p) const {
    if (p.x < 0 || p.x >= rows_)
      throw std::out_of_range("Matrix: row " + std::to_string(p.x) + " outside 0.." + std::to_string(rows_ - 1));
    if (p.y < 0 || p.y >= cols_)
      throw std::out_of_range("Matrix: column " + std::to_string(p.y) + " outside 0.." + std::to_string(cols_ - 1));
    return static_cast<size_t>(p.x) * static_cast<size_t>(cols_) + static_cast<size_t>(p.y);
  }
  int rows_, cols_;
  T* cells_;
};

#endif
