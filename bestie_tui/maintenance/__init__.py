"""Maintenance: what runs on a schedule and what it sends.

Owns: the crontab entry (``schedule``, with the line-preserving file reader/writer in
``crontab_file``), the digest and its rendering (``digest``, ``digest_render``) and delivery to
Telegram and Zalo (``delivery``: ``channels``, ``senders``, ``retry``).

May import: ``bestie_tui.hygiene`` (the digest reports the doctor), ``bestie_tui.store``,
``bestie_tui.text``, ``bestie_tui.errors``, ``bestie_tui.paths``.
"""
