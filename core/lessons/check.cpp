#include "lessons/check.hpp"

#include <utility>

namespace attn {

Check check_at_most(std::string claim, double measured, double limit) {
  return Check{std::move(claim), measured, limit, true, measured <= limit};
}
Check check_above(std::string claim, double measured, double limit) {
  return Check{std::move(claim), measured, limit, false, measured > limit};
}

}  // namespace attn
