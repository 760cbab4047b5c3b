#define PROBLEM "https://judge.yosupo.jp/problem/unionfind"

#include <cstdio>

#include "../graph/union_find.hpp"

int main() {
    int n, q;
    std::scanf("%d %d", &n, &q);
    UnionFind uf(n);
    while (q--) {
        int t, u, v;
        std::scanf("%d %d %d", &t, &u, &v);
        if (t == 0) uf.unite(u, v);
        else std::printf("%d\n", uf.find(u) == uf.find(v) ? 1 : 0);
    }
}
