// SPDX-License-Identifier: MIT
// Turns in collective order (coll/stage.cpp, the staging segment's
// broadcast slots): every user takes a ticket when it takes its place
// among the communicator's collectives, acts only while it is served, and
// passes the turn on when done. A user that gives its turn up before it
// came (a schedule that failed before its step ran) is skipped when the
// turns reach it. Header-only, so test/unit/coll checks it without a device.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace ch4lite::coll {

class turns {
  public:
    uint64_t take() noexcept { return next_++; }
    bool mine(uint64_t t) const noexcept { return served_ == t; }
    // Ends turn t: now if it is being served (then every given-up turn
    // right after it too), else when the turns reach it.
    void pass(uint64_t t) {
        if (served_ != t) {
            given_up_.push_back(t);
            return;
        }
        ++served_;
        for (auto it = std::find(given_up_.begin(), given_up_.end(), served_); it != given_up_.end();
             it = std::find(given_up_.begin(), given_up_.end(), served_)) {
            given_up_.erase(it);
            ++served_;
        }
    }
    uint64_t served() const noexcept { return served_; }
    std::size_t waiting_given_up() const noexcept { return given_up_.size(); }

  private:
    uint64_t next_ = 0;    // tickets handed out
    uint64_t served_ = 0;  // the turn being served
    std::vector<uint64_t> given_up_;
};

}  // namespace ch4lite::coll
