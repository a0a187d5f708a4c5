// Domains C++ player kit (spec 7.3): the adapter. It speaks the generic JSON-lines protocol on the
// real stdout, loads each `turn` observation into the static state GameInfo reads, runs the player's
// play() and replies with its orders. Written for botarena; no file of the original is copied here.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>

#include "Player.hh"

// ------------------------------------------------------------------------------------------ JSON
namespace domains_kit {

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> fields;

  const Json* get(const char* key) const {
    for (const auto& f : fields)
      if (f.first == key) return &f.second;
    return nullptr;
  }
  long long integer(long long fallback = 0) const { return kind == Number ? static_cast<long long>(num) : fallback; }
};

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text), i_(0) {}
  bool parse(Json& out) {
    try {
      value(out);
      ws();
      return i_ == s_.size();
    } catch (const std::exception&) {
      return false;
    }
  }

 private:
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  char peek() {
    ws();
    if (i_ >= s_.size()) throw std::runtime_error("end");
    return s_[i_];
  }
  void expect(char c) {
    if (peek() != c) throw std::runtime_error("syntax");
    ++i_;
  }
  void value(Json& out) {
    char c = peek();
    if (c == '{') {
      out.kind = Json::Object;
      ++i_;
      if (peek() == '}') { ++i_; return; }
      while (true) {
        Json key;
        string(key);
        expect(':');
        out.fields.emplace_back(key.str, Json());
        value(out.fields.back().second);
        if (peek() == ',') { ++i_; continue; }
        expect('}');
        return;
      }
    } else if (c == '[') {
      out.kind = Json::Array;
      ++i_;
      if (peek() == ']') { ++i_; return; }
      while (true) {
        out.items.emplace_back();
        value(out.items.back());
        if (peek() == ',') { ++i_; continue; }
        expect(']');
        return;
      }
    } else if (c == '"') {
      string(out);
    } else if (s_.compare(i_, 4, "true") == 0) {
      out.kind = Json::Bool; out.b = true; i_ += 4;
    } else if (s_.compare(i_, 5, "false") == 0) {
      out.kind = Json::Bool; out.b = false; i_ += 5;
    } else if (s_.compare(i_, 4, "null") == 0) {
      out.kind = Json::Null; i_ += 4;
    } else {
      out.kind = Json::Number;
      const char* start = s_.c_str() + i_;
      char* end = nullptr;
      out.num = std::strtod(start, &end);
      if (end == start) throw std::runtime_error("number");
      i_ += static_cast<size_t>(end - start);
    }
  }
  void string(Json& out) {
    expect('"');
    out.kind = Json::String;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c == '\\' && i_ < s_.size()) {
        char e = s_[i_++];
        switch (e) {
          case 'n': out.str += '\n'; break;
          case 't': out.str += '\t'; break;
          case 'r': out.str += '\r'; break;
          case 'b': out.str += '\b'; break;
          case 'f': out.str += '\f'; break;
          case 'u': out.str += '?'; i_ += 4; break;  // names only; non-ASCII is not needed
          default: out.str += e;
        }
      } else {
        out.str += c;
      }
    }
    expect('"');
  }
  const std::string& s_;
  size_t i_;
};

std::string quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') { out += '\\'; out += c; }
    else if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out + "\"";
}

// ------------------------------------------------------------------------------------------ state
struct State {
  int me = -1, n = 0, rows = 0, cols = 0, round = 0, unitTable = 0, bubbleTable = 0;
  std::vector<int> points, painter, drawer, drawerUnit, ability, unitAt, bubbleAt, bonusAt;
  std::vector<Unit> units;    // by id; the null unit where free
  std::vector<Bubble> bubbles;  // by slot
  std::vector<Bonus> bonuses;   // by slot
  std::vector<std::pair<std::string, long long>> config;
  long long randIndex = 0, randJump = 1;
  std::vector<Order> orders;
  std::set<int> ordered;
};
State state;

void warn(const std::string& text) { std::cerr << "domains kit warning: " << text << std::endl; }

// Table T of DR-2: 9,972 digits of pi and a final 0, computed once with Machin's formula
// pi = 16 arctan(1/5) - 4 arctan(1/239) in fixed point, base 10^9 limbs (no copied table).
namespace {
typedef std::vector<unsigned long long> Fixed;  // limb 0 is the integer part
const unsigned long long BASE = 1000000000ULL;

bool isZero(const Fixed& a) {
  for (unsigned long long limb : a)
    if (limb) return false;
  return true;
}
void divide(Fixed& a, unsigned long long d) {
  unsigned long long r = 0;
  for (auto& limb : a) {
    unsigned long long cur = r * BASE + limb;
    limb = cur / d;
    r = cur % d;
  }
}
void addTo(Fixed& a, const Fixed& b, bool subtract) {
  long long carry = 0;
  for (size_t i = a.size(); i-- > 0;) {
    long long v = static_cast<long long>(a[i]) + (subtract ? -static_cast<long long>(b[i]) : static_cast<long long>(b[i])) + carry;
    carry = 0;
    if (v < 0) { v += BASE; carry = -1; }
    else if (v >= static_cast<long long>(BASE)) { v -= BASE; carry = 1; }
    a[i] = static_cast<unsigned long long>(v);
  }
}
Fixed arctanInverse(unsigned long long x, size_t limbs) {
  Fixed term(limbs, 0), sum(limbs, 0), part(limbs, 0);
  term[0] = 1;
  divide(term, x);
  sum = term;
  for (unsigned long long k = 1; !isZero(term); ++k) {
    divide(term, x * x);
    part = term;
    divide(part, 2 * k + 1);
    addTo(sum, part, k % 2 == 1);
  }
  return sum;
}
}  // namespace

const std::vector<int>& piTable() {
  static std::vector<int> table;
  if (!table.empty()) return table;
  const size_t decimals = 9971;
  const size_t limbs = decimals / 9 + 4;
  Fixed a = arctanInverse(5, limbs), b = arctanInverse(239, limbs), pi(limbs, 0);
  for (int k = 0; k < 16; ++k) addTo(pi, a, false);
  for (int k = 0; k < 4; ++k) addTo(pi, b, true);
  table.push_back(static_cast<int>(pi[0]));
  for (size_t i = 1; i < limbs && table.size() < decimals + 1; ++i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%09llu", pi[i]);
    for (int c = 0; c < 9 && table.size() < decimals + 1; ++c) table.push_back(buf[c] - '0');
  }
  table.push_back(0);
  return table;
}

void seedRandom(long long seed) {
  long long s = seed % 109703;
  if (s < 0) s += 109703;
  state.randIndex = s % 9973;
  state.randJump = s % 11 + 1;
}

int draw(int l, int r) {
  if (l >= r) return l;
  const std::vector<int>& t = piTable();
  long long number = 0;
  for (int k = 0; k < 5; ++k) {
    state.randIndex = (state.randIndex + state.randJump) % 9973;
    number = number * 10 + t[state.randIndex];
  }
  return l + static_cast<int>((static_cast<long long>(r - l + 1) * number) / 100000);
}

std::vector<int> flatGrid(const Json* rows, int H, int W, int fill) {
  std::vector<int> out(static_cast<size_t>(H) * W, fill);
  if (rows == nullptr) return out;
  for (int x = 0; x < H && x < static_cast<int>(rows->items.size()); ++x) {
    const Json& row = rows->items[x];
    for (int y = 0; y < W && y < static_cast<int>(row.items.size()); ++y)
      out[static_cast<size_t>(x) * W + y] = static_cast<int>(row.items[y].integer(fill));
  }
  return out;
}

void loadObservation(const Json& obs) {
  State& s = state;
  auto num = [&](const char* key, long long fallback) {
    const Json* v = obs.get(key);
    return v ? v->integer(fallback) : fallback;
  };
  s.round = static_cast<int>(num("round", 0));
  s.me = static_cast<int>(num("me", s.me));
  s.n = static_cast<int>(num("num_players", s.n));
  s.rows = static_cast<int>(num("rows", 0));
  s.cols = static_cast<int>(num("cols", 0));
  s.unitTable = static_cast<int>(num("unit_table_size", 0));
  s.bubbleTable = static_cast<int>(num("bubble_table_size", 0));
  s.points.clear();
  if (const Json* p = obs.get("points"))
    for (const Json& v : p->items) s.points.push_back(static_cast<int>(v.integer()));
  int H = s.rows, W = s.cols;
  s.painter = flatGrid(obs.get("painter"), H, W, -1);
  s.drawer = flatGrid(obs.get("drawer"), H, W, -1);
  s.drawerUnit = flatGrid(obs.get("drawer_unit"), H, W, -1);
  s.ability = flatGrid(obs.get("ability"), H, W, 0);
  s.unitAt.assign(static_cast<size_t>(H) * W, -1);
  s.bubbleAt.assign(static_cast<size_t>(H) * W, -1);
  s.bonusAt.assign(static_cast<size_t>(H) * W, -1);
  s.units.assign(s.unitTable, Unit());
  if (const Json* list = obs.get("units")) {
    for (const Json& u : list->items) {
      int id = static_cast<int>(u.get("id") ? u.get("id")->integer(-1) : -1);
      int x = static_cast<int>(u.get("x")->integer()), y = static_cast<int>(u.get("y")->integer());
      if (id < 0 || id >= s.unitTable || x < 0 || y < 0 || x >= H || y >= W) continue;
      const Json* up = u.get("upgraded");
      s.units[id] = Unit(id, static_cast<int>(u.get("player")->integer()), Position(x, y), up && up->b,
                         static_cast<int>(u.get("energy")->integer()));
      s.unitAt[static_cast<size_t>(x) * W + y] = id;
    }
  }
  s.bubbles.assign(s.bubbleTable, Bubble());
  if (const Json* list = obs.get("bubbles")) {
    for (const Json& b : list->items) {
      int id = static_cast<int>(b.get("id")->integer(-1));
      int x = static_cast<int>(b.get("x")->integer()), y = static_cast<int>(b.get("y")->integer());
      if (id < 0 || id >= s.bubbleTable || x < 0 || y < 0 || x >= H || y >= W) continue;
      s.bubbles[id] = Bubble(id, static_cast<int>(b.get("player")->integer()), Position(x, y),
                             static_cast<int>(b.get("rounds_to_pop")->integer()));
      s.bubbleAt[static_cast<size_t>(x) * W + y] = id;
    }
  }
  s.bonuses.clear();
  if (const Json* list = obs.get("bonuses")) {
    for (const Json& k : list->items) {
      int id = static_cast<int>(k.get("id")->integer(-1));
      int x = static_cast<int>(k.get("x")->integer()), y = static_cast<int>(k.get("y")->integer());
      if (id < 0 || x < 0 || y < 0 || x >= H || y >= W) continue;
      if (static_cast<int>(s.bonuses.size()) <= id) s.bonuses.resize(id + 1, Bonus());
      s.bonuses[id] = Bonus(id, Position(x, y));
      s.bonusAt[static_cast<size_t>(x) * W + y] = id;
    }
  }
}

void queueOrder(int unitId, Direction dir, OrderType type) {
  static const char* names[] = {"move", "attack", "ability"};
  if (unitId < 0 || unitId >= state.unitTable) {
    warn(std::string(names[type]) + ": unit id " + std::to_string(unitId) + " outside [0, " +
         std::to_string(state.unitTable) + ")");
    return;
  }
  if (static_cast<int>(dir) < 0 || static_cast<int>(dir) > 8) {
    warn(std::string(names[type]) + ": bad direction " + std::to_string(static_cast<int>(dir)));
    return;
  }
  if (!state.ordered.insert(unitId).second) {
    warn(std::string(names[type]) + ": unit " + std::to_string(unitId) + " already has an order this round");
    return;
  }
  state.orders.push_back(Order(unitId, dir, type));
}

std::map<std::string, Register::Factory>& registry() {
  static std::map<std::string, Register::Factory> players;
  return players;
}

}  // namespace domains_kit

using domains_kit::state;

// ------------------------------------------------------------------------------------------ Utility
static const int DX[9] = {0, -1, 1, 0, 0, -1, -1, 1, 1};
static const int DY[9] = {0, 0, 0, -1, 1, -1, 1, -1, 1};

std::ostream& operator<<(std::ostream& os, Direction d) {
  switch (d) {
    case Direction::up: return os << "Up";
    case Direction::down: return os << "Down";
    case Direction::left: return os << "Left";
    case Direction::right: return os << "Right";
    case Direction::UL: return os << "UL";
    case Direction::UR: return os << "UR";
    case Direction::DL: return os << "DL";
    case Direction::DR: return os << "DR";
    default: return os << static_cast<int>(d);
  }
}

std::ostream& operator<<(std::ostream& os, OrderType t) {
  switch (t) {
    case OrderType::movement: return os << "movement";
    case OrderType::attack: return os << "attack";
    default: return os << "ability";
  }
}

std::ostream& operator<<(std::ostream& os, const Order& o) { return os << o.unitId << ": " << o.type << " " << o.dir; }

std::ostream& operator<<(std::ostream& os, const Position& p) {
  return os << "(" << static_cast<int>(p.x) << ", " << static_cast<int>(p.y) << ")";
}

Position Position::operator+(const Direction& d) const {
  int k = static_cast<int>(d);
  if (k < 0 || k > 8) k = 0;
  return Position(x + DX[k], y + DY[k]);
}

Direction Position::to(Position p) {
  int dx = (p.x > x) - (p.x < x), dy = (p.y > y) - (p.y < y);
  for (int k = 0; k < 9; ++k)
    if (DX[k] == dx && DY[k] == dy) return static_cast<Direction>(k);
  return Direction::null;
}

namespace utils {
std::tuple<Direction, Direction> decompose(Direction d) {
  switch (d) {
    case Direction::UL: return std::make_tuple(Direction::left, Direction::up);
    case Direction::UR: return std::make_tuple(Direction::right, Direction::up);
    case Direction::DL: return std::make_tuple(Direction::left, Direction::down);
    case Direction::DR: return std::make_tuple(Direction::right, Direction::down);
    default: return std::make_tuple(Direction::null, Direction::null);
  }
}
std::tuple<Direction, Direction> perpendiculars(Direction d) {
  if (d == Direction::up || d == Direction::down) return std::make_tuple(Direction::right, Direction::left);
  if (d == Direction::left || d == Direction::right) return std::make_tuple(Direction::up, Direction::down);
  return std::make_tuple(Direction::null, Direction::null);
}
Direction invert(Direction d) {
  int k = static_cast<int>(d);
  if (k <= 0 || k > 8) return Direction::null;
  return Position(0, 0).to(Position(-DX[k], -DY[k]));
}
bool isDiagonal(Direction d) { return d >= Direction::UL; }
}  // namespace utils

// ------------------------------------------------------------------------------------------ GameInfo
int GameInfo::rows() { return state.rows; }
int GameInfo::cols() { return state.cols; }
int GameInfo::round() { return state.round; }

int GameInfo::points(int pl) {
  if (pl < 0 || pl >= static_cast<int>(state.points.size())) {
    domains_kit::warn("points: bad player id " + std::to_string(pl));
    return -1;
  }
  return state.points[pl];
}

bool GameInfo::posOk(const Position& p) { return p.x >= 0 && p.y >= 0 && p.x < state.rows && p.y < state.cols; }

Square GameInfo::square(const Position& p) {
  Square sq;
  sq.pos_ = p;
  if (!posOk(p)) {
    domains_kit::warn("square: position off the board");
    return sq;
  }
  size_t q = static_cast<size_t>(p.x) * state.cols + p.y;
  sq.painter_ = state.painter[q];
  sq.drawer_ = state.drawer[q];
  sq.unitDrawer_ = state.drawerUnit[q];
  sq.ability_ = state.ability[q];
  if (state.unitAt[q] >= 0) { sq.hasUnit_ = true; sq.unit_ = state.units[state.unitAt[q]]; }
  if (state.bubbleAt[q] >= 0) { sq.hasBubble_ = true; sq.bubble_ = state.bubbles[state.bubbleAt[q]]; }
  if (state.bonusAt[q] >= 0) { sq.hasBonus_ = true; sq.bonus_ = state.bonuses[state.bonusAt[q]]; }
  return sq;
}

Unit GameInfo::unit(int uid) {
  if (uid < 0 || uid >= static_cast<int>(state.units.size()) || state.units[uid].id() < 0) {
    domains_kit::warn("unit: no living unit with id " + std::to_string(uid));
    return Unit();
  }
  return state.units[uid];
}

Unit GameInfo::unit(Position p) {
  if (!posOk(p) || state.unitAt[static_cast<size_t>(p.x) * state.cols + p.y] < 0) {
    domains_kit::warn("unit: no unit at that position");
    return Unit();
  }
  return state.units[state.unitAt[static_cast<size_t>(p.x) * state.cols + p.y]];
}

Bubble GameInfo::bubble(int bid) {
  if (bid < 0 || bid >= static_cast<int>(state.bubbles.size()) || state.bubbles[bid].id() < 0) {
    domains_kit::warn("bubble: no bubble with id " + std::to_string(bid));
    return Bubble();
  }
  return state.bubbles[bid];
}

Bubble GameInfo::bubble(Position p) {
  if (!posOk(p) || state.bubbleAt[static_cast<size_t>(p.x) * state.cols + p.y] < 0) {
    domains_kit::warn("bubble: no bubble at that position");
    return Bubble();
  }
  return state.bubbles[state.bubbleAt[static_cast<size_t>(p.x) * state.cols + p.y]];
}

void GameInfo::printSettings() {
  static const char* labels[][2] = {
      {"NUMBER_OF_PLAYERS\t", "num_players"},       {"UNITS_AT_START\t\t", "units_at_start"},
      {"MAX_NUMBER_OF_UNITS\t", "max_number_of_units"}, {"MIN_NUMBER_OF_UNITS\t", "min_number_of_units"},
      {"MAX_NUMBER_OF_BONUSES\t", "max_number_of_bonuses"}, {"MAX_BONUSES_PER_PLAYER\t", "max_bonuses_per_player"},
      {"ROUNDS_PER_RESPAWN\t", "rounds_per_respawn"}, {"ROUNDS_PER_BUBBLE\t", "rounds_per_bubble"},
      {"ROUNDS_PER_BUBBLE_MOVE", "rounds_per_bubble_move"}, {"MAX_ROUNDS_PER_BONUS\t", "max_rounds_per_bonus"},
      {"POINTS_PER_UNIT\t\t", "points_per_unit"},   {"POINTS_PER_BUBBLE\t", "points_per_bubble"},
      {"POINTS_PER_POP\t\t", "points_per_pop"},     {"POINTS_PER_SQUARE\t", "points_per_square"},
      {"ENERGY_AT_START\t\t", "energy_at_start"},   {"MAX_ENERGY\t\t", "max_energy"},
      {"MIN_ENERGY\t\t", "min_energy"},             {"ABILITY SIZE\t\t", "ability_size"},
      {"ABILITY DURATION\t", "ability_duration"},   {"BOARD_WIDTH\t\t", "board_width"},
      {"BOARD_HEIGHT\t\t", "board_height"},         {"ROUNDS_TO_POP\t", "rounds_to_pop"}};
  for (auto& label : labels) {
    std::cerr << label[0];
    for (auto& kv : state.config)
      if (kv.first == label[1]) std::cerr << kv.second;
    std::cerr << "\n";
  }
  std::cerr.flush();
}

int GameInfo::randomNumber(int l, int r) {
  if (l > r) {
    domains_kit::warn("randomNumber: l > r");
    return l;
  }
  return domains_kit::draw(l, r);
}

std::vector<int> GameInfo::randomPermutation() {
  std::vector<int> v = {0, 1, 2, 3};
  int k = domains_kit::draw(0, 23);
  for (int i = 0; i < k; ++i) std::next_permutation(v.begin(), v.end());
  return v;
}

std::vector<int> GameInfo::units(int pl) {
  std::vector<int> out;
  if (pl < 0 || pl >= state.n) {
    domains_kit::warn("units: bad player id " + std::to_string(pl));
    return out;
  }
  for (const Unit& u : state.units)
    if (u.id() >= 0 && u.player() == pl) out.push_back(u.id());
  return out;
}

std::vector<int> GameInfo::numberOfUnits() {
  std::vector<int> out(4, 0);
  for (const Unit& u : state.units)
    if (u.id() >= 0 && u.player() >= 0 && u.player() < 4) ++out[u.player()];
  return out;
}

int GameInfo::maxNumberOfUnits() { return state.unitTable; }

// ------------------------------------------------------------------------------------------ orders
void PlayerOrders::move(int unitId, Direction dir) { domains_kit::queueOrder(unitId, dir, OrderType::movement); }
void PlayerOrders::attack(int unitId, Direction dir) { domains_kit::queueOrder(unitId, dir, OrderType::attack); }
void PlayerOrders::ability(int unitId) { domains_kit::queueOrder(unitId, Direction::null, OrderType::ability); }

int Player::me() const { return state.me; }

// ------------------------------------------------------------------------------------------ Register
int Register::RegisterPlayer(const char* name, Factory f) {
  domains_kit::registry()[name] = f;
  return 0;
}

Player* Register::newPlayer(std::string name) {
  auto it = domains_kit::registry().find(name);
  return it == domains_kit::registry().end() ? nullptr : it->second();
}

void Register::printPlayers() {
  for (auto& kv : domains_kit::registry()) std::cerr << kv.first << std::endl;
}

// ------------------------------------------------------------------------------------------ main
namespace {

int protocolFd = 1;

void writeLine(const std::string& line) {
  std::string out = line + "\n";
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::write(protocolFd, out.data() + done, out.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

std::string idText(const domains_kit::Json* id) {
  if (id == nullptr || id->kind != domains_kit::Json::Number) return "null";
  std::ostringstream os;
  os.precision(17);
  os << id->num;
  return os.str();
}

}  // namespace

using domains_kit::Json;

int main(int argc, char** argv) {
  // Player prints go to stderr: the real stdout is kept for protocol lines only.
  protocolFd = ::dup(1);
  ::dup2(2, 1);
  std::cout.rdbuf(std::cerr.rdbuf());
  std::ios::sync_with_stdio(true);

  auto& players = domains_kit::registry();
  std::string chosen;
  if (argc > 1) {
    chosen = argv[1];
    if (players.find(chosen) == players.end()) {
      std::cerr << "domains kit: unknown player '" << chosen << "'" << std::endl;
      return 2;
    }
  } else if (players.size() == 1) {
    chosen = players.begin()->first;
  } else {
    std::cerr << "domains kit: " << players.size() << " players registered; name one as the first argument"
              << std::endl;
    return 2;
  }
  std::unique_ptr<Player> player;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    Json request;
    if (!domains_kit::Parser(line).parse(request) || request.kind != Json::Object) {
      std::cerr << "domains kit: unreadable request line" << std::endl;
      continue;
    }
    const Json* type = request.get("type");
    const Json* payload = request.get("payload");
    std::string id = idText(request.get("id"));
    std::string kind = type ? type->str : "";
    if (kind == "start") {
      if (payload) {
        if (const Json* me = payload->get("me")) state.me = static_cast<int>(me->integer(-1));
        if (const Json* n = payload->get("num_players")) state.n = static_cast<int>(n->integer());
        if (const Json* seed = payload->get("bot_seed")) domains_kit::seedRandom(static_cast<long long>(seed->num));
        if (const Json* config = payload->get("config"))
          for (const auto& f : config->fields)
            if (f.second.kind == Json::Number) state.config.emplace_back(f.first, f.second.integer());
      }
      domains_kit::piTable();  // computed now, inside the start deadline, not in a turn
      player.reset(Register::newPlayer(chosen));
      writeLine("{\"id\":" + id + ",\"payload\":{}}");
    } else if (kind == "turn") {
      std::string error;
      state.orders.clear();
      state.ordered.clear();
      if (payload) domains_kit::loadObservation(*payload);
      try {
        if (!player) player.reset(Register::newPlayer(chosen));
        player->play();
      } catch (const std::exception& exc) {
        error = std::string("exception in play(): ") + exc.what();
      } catch (...) {
        error = "exception in play()";
      }
      std::cout.flush();
      std::string reply = "{\"id\":" + id + ",\"payload\":{\"orders\":[";
      static const char* names[] = {"move", "attack", "ability"};
      if (error.empty()) {
        for (size_t k = 0; k < state.orders.size(); ++k) {
          const Order& o = state.orders[k];
          if (k) reply += ",";
          reply += "{\"unit\":" + std::to_string(o.unitId) + ",\"type\":\"" + names[o.type] + "\"";
          if (o.type != OrderType::ability) reply += ",\"dir\":" + std::to_string(static_cast<int>(o.dir));
          reply += "}";
        }
        reply += "]}}";
      } else {
        reply += "],\"error\":" + domains_kit::quote(error) + "}}";
      }
      writeLine(reply);
    } else if (kind == "end") {
      writeLine("{\"id\":" + id + ",\"payload\":{}}");
      return 0;
    } else {
      writeLine("{\"id\":" + id + ",\"payload\":{}}");
    }
  }
  return 0;
}
