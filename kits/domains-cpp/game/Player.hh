// Domains C++ player kit (spec 7.3): the base class of a player. Include it as "../game/Player.hh".
#ifndef DOMAINS_KIT_PLAYER_HH
#define DOMAINS_KIT_PLAYER_HH

#include "Register.hh"
#include "PlayerOrders.hh"
#include "GameInfo.hh"

class Player : public PlayerOrders, public GameInfo {
 public:
  virtual ~Player() {}
  int me() const;
  virtual void play() = 0;
};

#endif
