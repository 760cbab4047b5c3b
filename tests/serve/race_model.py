"""A one-player cost model for the server's tests (after a user's own): roll one or two
dice until the total reaches 10; two dice cost 2 below 5, else 1."""

from collections import Counter


class Race:
    start = 0

    def is_goal(self, s):
        return s >= 10

    def choices(self, s):
        return [(s, 1), (s, 2)]

    def roll(self, p):
        s, n = p
        c = Counter()
        if n == 1:
            for a in range(1, 7):
                c[min(s + a, 10)] += 1
        else:
            for a in range(1, 7):
                for b in range(1, 7):
                    c[min(s + a + b, 10)] += 1
        return c

    def cost(self, p):
        return 1 if p[1] == 1 else 2 if p[0] < 5 else 1
