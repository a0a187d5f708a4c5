// Domains C++ player kit (spec 7.3): read-only access to the round's state, as static functions.
#ifndef DOMAINS_KIT_GAMEINFO_HH
#define DOMAINS_KIT_GAMEINFO_HH

#include "Utility.hh"

class GameInfo {
 public:
  static int rows();
  static int cols();
  static int round();
  static int points(int pl);
  static Square square(const Position& p);
  static Unit unit(int uid);
  static Unit unit(Position p);
  static Bubble bubble(int bid);
  static Bubble bubble(Position p);
  static bool posOk(const Position& p);
  static void printSettings();
  static int randomNumber(int l, int r);
  static std::vector<int> randomPermutation();
  static std::vector<int> units(int pl);
  static std::vector<int> numberOfUnits();
  static int maxNumberOfUnits();
};

#endif
