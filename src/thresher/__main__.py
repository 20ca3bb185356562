"""``python -m thresher``: the command line (see :mod:`thresher.cli`)."""
from .cli import main

raise SystemExit(main())
