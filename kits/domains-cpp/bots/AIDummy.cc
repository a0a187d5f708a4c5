// The `dummy` starter bot of spec section 10, in the original's style: abilities first, then targets
// within 20 steps (breadth-first, in a per-unit shuffled direction order), then one-square trails
// home. Same rules and the same private random draws as the Python `dummy`, so given the same
// bot_seed and observations both give the same orders (a kit test checks it).
#include "../game/Player.hh"

#define PLAYER_NAME Dummy
using namespace std;

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }

  static const int TARGET_DEPTH = 20;
  int H = 0, W = 0, me_ = 0;
  vector<int> painter, drawer, zone, owner;  // owner: the unit's player on a square, or -1
  vector<char> bubble, bubbleTarget, bonus, reserved;

  int at(int x, int y) const { return x * W + y; }
  bool onBoard(int x, int y) const { return 0 <= x && x < H && 0 <= y && y < W; }
  bool own(int q) const { return painter[q] == me_; }
  bool openSquare(int x, int y) const {
    if (!onBoard(x, y)) return false;
    int q = at(x, y);
    return owner[q] != me_ && !reserved[q] && !zone[q];
  }

  // A breadth-first search from `start`: returns the first direction of the path to the first
  // visited goal square (and that square in `found`), or null if there is none within `limit`.
  template <typename Open, typename Expand, typename Goal, typename Diagonal>
  Direction search(int start, const vector<Direction>& order, Open open, Expand expand, Goal goal,
                   Diagonal diagonalFrom, int limit, int* found) {
    vector<char> seen(H * W, 0);
    seen[start] = 1;
    queue<tuple<int, int, Direction>> todo;  // square, depth, first step
    todo.push(make_tuple(start, 0, null));
    while (!todo.empty()) {
      int q = get<0>(todo.front()), depth = get<1>(todo.front());
      Direction first = get<2>(todo.front());
      todo.pop();
      if (depth >= limit) continue;
      if (first != null && !expand(q)) continue;
      bool diagonal = diagonalFrom(q);
      for (Direction d : order) {
        if (utils::isDiagonal(d) && !diagonal) continue;
        Position p = Position(q / W, q % W) + d;
        if (!open(p.x, p.y)) continue;
        int n = at(p.x, p.y);
        if (seen[n]) continue;
        seen[n] = 1;
        Direction step = first == null ? d : first;
        if (goal(n)) {
          *found = n;
          return step;
        }
        todo.push(make_tuple(n, depth + 1, step));
      }
    }
    return null;
  }

  void play() {
    me_ = me();
    H = rows();
    W = cols();
    int size = H * W;
    painter.assign(size, -1);
    drawer.assign(size, -1);
    zone.assign(size, 0);
    owner.assign(size, -1);
    bubble.assign(size, 0);
    bubbleTarget.assign(size, 0);
    bonus.assign(size, 0);
    reserved.assign(size, 0);
    vector<int> enemies;
    for (int x = 0; x < H; ++x)
      for (int y = 0; y < W; ++y) {
        Square s = square(Position(x, y));
        int q = at(x, y);
        painter[q] = s.painter();
        drawer[q] = s.drawer();
        zone[q] = s.ability() && s.painter() >= 0 && s.painter() != me_;
        if (s.hasUnit()) {
          owner[q] = s.unit().player();
          if (owner[q] != me_) enemies.push_back(q);
        }
        if (s.hasBubble()) {
          bubble[q] = 1;
          bubbleTarget[q] = s.bubble().player() != me_ || s.bubble().roundsToPop() == 0;
        }
        if (s.hasBonus()) bonus[q] = 1;
      }

    vector<int> mine = units(me_), abilities, others;
    for (int id : mine) (unit(id).upgraded() ? abilities : others).push_back(id);
    map<int, vector<Direction>> orderOf;
    for (int id : others) {
      vector<int> perm = randomPermutation();
      vector<Direction> order;
      for (int v : perm) order.push_back(static_cast<Direction>(v + 1));
      for (Direction d : {UL, UR, DL, DR}) order.push_back(d);
      orderOf[id] = order;
    }

    vector<char> claimed(size, 0);
    vector<pair<int, Direction>> targetMoves, drawingMoves;
    vector<int> drawing;
    for (int id : others) {
      Position pos = unit(id).position();
      int here = at(pos.x, pos.y);
      if (zone[here]) continue;  // stuck in an enemy zone: no order
      vector<char> candidate(size, 0);
      bool near = false;
      for (int q = 0; q < size; ++q) {
        bool target = bonus[q] || bubbleTarget[q];
        if (owner[q] >= 0 && owner[q] != me_) {
          int cx = abs(q / W - pos.x), cy = abs(q % W - pos.y);
          target = target || own(q) || max(cx, cy) <= 2;
        }
        if (target && !claimed[q]) {
          candidate[q] = 1;
          if (max(abs(q / W - pos.x), abs(q % W - pos.y)) <= TARGET_DEPTH) near = true;
        }
      }
      int found = -1;
      Direction first = null;
      if (near) {
        first = search(
            here, orderOf[id], [&](int x, int y) { return openSquare(x, y); },
            [&](int q) { return !bubble[q] && !(owner[q] >= 0 && owner[q] != me_); },
            [&](int q) { return candidate[q] != 0; }, [&](int q) { return own(q); }, TARGET_DEPTH, &found);
      }
      if (first == null) {
        drawing.push_back(id);
        continue;
      }
      claimed[found] = 1;
      Position step = pos + first;
      reserved[at(step.x, step.y)] = 1;
      targetMoves.push_back(make_pair(id, first));
    }

    for (int id : drawing) {
      Position pos = unit(id).position();
      int here = at(pos.x, pos.y), found = -1;
      auto free = [&](int q) { return owner[q] < 0 && !bubble[q]; };
      Direction first;
      if (own(here)) {
        vector<Direction> orthogonal(orderOf[id].begin(), orderOf[id].begin() + 4);
        first = search(
            here, orthogonal, [&](int x, int y) { return openSquare(x, y); },
            [&](int q) { return own(q) && free(q); },
            [&](int q) { return !own(q) && free(q) && drawer[q] != me_; }, [](int) { return false; }, size + 1,
            &found);
      } else {
        first = search(
            here, orderOf[id],
            [&](int x, int y) { return openSquare(x, y) && free(at(x, y)) && drawer[at(x, y)] != me_; },
            [](int) { return true; }, [&](int q) { return own(q); }, [&](int q) { return own(q); }, size + 1,
            &found);
      }
      if (first == null) continue;
      Position step = pos + first;
      reserved[at(step.x, step.y)] = 1;
      drawingMoves.push_back(make_pair(id, first));
    }

    for (int id : abilities) ability(id);
    for (auto& m : targetMoves) move(m.first, m.second);
    for (auto& m : drawingMoves) move(m.first, m.second);
  }
};

REGISTER_PLAYER(PLAYER_NAME);
