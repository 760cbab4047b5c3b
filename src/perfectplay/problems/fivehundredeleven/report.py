"""FiveHundredEleven's output: the winner (official), and the reason in words."""

from __future__ import annotations

from perfectplay.problems.fivehundredeleven.solution import Solution


def format(solution: Solution) -> str:
    """The official answer: ``Fox Ciel`` or ``Toastman``."""
    return solution.winner


def explain(solution: Solution) -> str:
    """The answer with the reason: a winning first card, or every first card and its refutation."""
    out = [solution.winner]
    r = solution.remoteness
    if solution.first_player_wins:
        best = solution.first_moves()[0]
        out.append(
            f"Fox Ciel wins: play {_cards(best.cards)} first (memory 0 -> {best.memory}); "
            f"she wins after {r} card{'s' * (r != 1)} in all against the longest defence."
        )
    elif solution.game.best_moves(0):
        out.append(
            f"Every first card loses; with best play the game lasts {r} card{'s' * (r != 1)} "
            "(Toastman hurries, Fox Ciel delays):"
        )
    else:
        out.append("Fox Ciel has no card to play.")
    if not solution.first_player_wins:
        for mv in solution.first_moves():
            reply = solution.game.best_moves(mv.child)
            answer = ""
            if reply:
                c = reply[0].child
                card = solution.cards_for(mv.child, c, mv.cards[:1])[0]
                answer = f", Toastman answers {card} (memory {int(solution.model.memory[c])})"
            out.append(
                f"  {_cards(mv.cards)}: memory {mv.memory}{answer}; "
                f"Fox Ciel loses after {mv.remoteness} card{'s' * (mv.remoteness != 1)}"
            )
    line = solution.line()
    if line:
        out.append("optimal play: " + ", ".join(f"{who} {card} ({mem})" for who, card, mem in line))
    g = solution.model.graph
    out.append(f"positions (memory, cards played): {g.n_positions:,}; moves: {g.n_moves:,}")
    return "\n".join(out)


def _cards(cards: tuple[int, ...]) -> str:
    return f"card {cards[0]}" if len(cards) == 1 else "a card of " + "/".join(map(str, cards))
