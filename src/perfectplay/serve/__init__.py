"""``perfectplay serve``: a local web app that plays any solved game with every option's
value, over a stateless JSON API that renders the result surface (``docs/serve.md``).

- :mod:`perfectplay.serve.games`: the served games, states as text;
- :mod:`perfectplay.serve.scorecard`: the Yahtzee family's situations and rolls;
- :mod:`perfectplay.serve.app`: the Starlette application and its safety rules;
- :mod:`perfectplay.serve.command`: the command line (needs the ``serve`` extra);
- :mod:`perfectplay.serve.specs`: models named on the command line.
"""
