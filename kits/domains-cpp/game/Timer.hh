// Domains C++ player kit (spec 7.3): a stopwatch, as in the original's Timer.hh.
#ifndef DOMAINS_KIT_TIMER_HH
#define DOMAINS_KIT_TIMER_HH

#include <chrono>
#include <iostream>
#include <string>

class Timer {
 public:
  Timer(std::string label, double* accumulator, bool print = true)
      : label_(std::move(label)), accumulator_(accumulator), print_(print), stopped_(false),
        start_(std::chrono::steady_clock::now()) {}
  ~Timer() { Stop(); }
  // Elapsed milliseconds since construction.
  double getTime() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }
  void Stop() {
    if (stopped_) return;
    stopped_ = true;
    double ms = getTime();
    if (accumulator_ != nullptr) *accumulator_ += ms;
    if (print_) std::cerr << "Time of " << label_ << ": " << ms << "ms" << std::endl;
  }

 private:
  std::string label_;
  double* accumulator_;
  bool print_;
  bool stopped_;
  std::chrono::steady_clock::time_point start_;
};

#endif
