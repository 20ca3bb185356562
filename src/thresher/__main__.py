"""``python -m thresher``: the command line (see :mod:`thresher.cli.main`)."""
from .cli.main import main

raise SystemExit(main())
