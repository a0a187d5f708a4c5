// Domains C++ player kit (spec 7.3): queueing orders (at most one per unit, checked at queue time).
#ifndef DOMAINS_KIT_PLAYERORDERS_HH
#define DOMAINS_KIT_PLAYERORDERS_HH

#include "Utility.hh"

class PlayerOrders {
 protected:
  void move(int unitId, Direction dir);
  void attack(int unitId, Direction dir);
  void ability(int unitId);
};

#endif
