# verification-helper: PROBLEM https://judge.yosupo.jp/problem/aplusb
a, b = map(int, input().split())
print(a + b)
