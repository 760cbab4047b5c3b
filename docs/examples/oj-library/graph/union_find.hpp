#pragma once
#include "../common/types.hpp"

// Disjoint sets with path halving and union by size.
struct UnionFind {
    std::vector<int> parent, size;
    explicit UnionFind(int n) : parent(n), size(n, 1) {
        for (int i = 0; i < n; i++) parent[i] = i;
    }
    int find(int x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    }
    bool unite(int a, int b) {
        a = find(a), b = find(b);
        if (a == b) return false;
        if (size[a] < size[b]) std::swap(a, b);
        parent[b] = a, size[a] += size[b];
        return true;
    }
};
