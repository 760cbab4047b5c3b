"""Text in and out: the rules every input is read by and every number is written by.

* :mod:`.parse`: lines, tokens and integers of an input (``InputError`` with the line);
* :mod:`.arguments`: argparse types for integer and file options, under the same rules;
* :mod:`.numbers`: decimals of floats (9 by default, ``--digits``) and exact ``p/q``.

These sit low in the layers (they import :mod:`perfectplay.errors` and
:mod:`perfectplay.objectives` only): the gallery's parsers, the reports and the command
line all read them, and the library never imports its command line to parse a file.
"""

__all__: list[str] = []  # import the modules themselves
