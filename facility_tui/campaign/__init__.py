"""The campaign folder: its saves (``folder``, ``files``, ``summaries``), its party
(``party``: the file as fights read it; ``roster``: its own changes), templates and catalogs.
"""
