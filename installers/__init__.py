"""Offline installation: build a bundle (wheels, models, install script) on a connected machine, and
install Trove from it on a machine with no network. `python -m installers build|install`."""
