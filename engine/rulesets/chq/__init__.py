"""The CHQ (Combat HQ) ruleset: rules data in ``rules.toml``, the game in ``game.py``.

Modules: ``fire`` (exact fire odds), ``facts`` (fixed facts of a game), ``actions``
(orders and outcomes, with their notation), ``command`` (Command Dice, chains, Staff
Orders), ``movement``, ``combat`` (pending fires), ``artillery`` (missions, deviation,
templates, smoke, supply, barrage rounds), ``blinds`` (spotting), ``sightlines``
(CHQ-30 on engine.sight), ``victory``, ``state`` (mutable records), ``orders`` (what
orders do), ``decisions`` (what may be ordered and why not), ``observation``,
``hooks`` (planner hooks), ``game`` (``new_game`` and ``ChqState``).
"""
