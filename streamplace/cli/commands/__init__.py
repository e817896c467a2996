"""The commands of ``streamplace``, one module each (``cli/app.py`` maps a name to its
module); what several share lives beside them in ``cli/``."""
