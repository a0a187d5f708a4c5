// Domains C++ player kit (spec 7.3): player registration, as in the original.
#ifndef DOMAINS_KIT_REGISTER_HH
#define DOMAINS_KIT_REGISTER_HH

#include <string>

class Player;

class Register {
 public:
  typedef Player* (*Factory)();
  static int RegisterPlayer(const char* name, Factory f);
  static Player* newPlayer(std::string name);
  static void printPlayers();
};

// Two levels, so that REGISTER_PLAYER(PLAYER_NAME) registers the expanded name.
#define DOMAINS_KIT_REGISTER_(Name) static int Name##_domains_kit_registered = Register::RegisterPlayer(#Name, Name::factory)
#define REGISTER_PLAYER(Name) DOMAINS_KIT_REGISTER_(Name)

#endif
