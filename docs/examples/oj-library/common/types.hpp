#pragma once
#include <vector>

using Int = long long;
