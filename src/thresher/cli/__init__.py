"""The ``thresher`` command line: :mod:`thresher.cli.main` builds the parser and runs the
commands, :mod:`thresher.cli.web` adds the content switches and the web inputs."""
