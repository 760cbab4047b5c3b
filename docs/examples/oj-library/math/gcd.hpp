#pragma once
#include "../common/types.hpp"

// Greatest common divisor, not yet verified by any test.
inline Int gcd(Int a, Int b) { return b == 0 ? a : gcd(b, a % b); }
