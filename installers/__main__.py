"""`python -m installers build OUT_DIR ...` or `python -m installers install BUNDLE ...`."""

from __future__ import annotations

import sys
from collections.abc import Sequence

USAGE = """usage: python -m installers build OUT_DIR [--models ROLE,...] [--archive] [--help]
       python -m installers install BUNDLE [--venv DIR] [--prefix DIR] [--models-dir DIR] [--help]"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["build"]:
        from installers.build import main as build_main

        return build_main(args[1:])
    if args[:1] == ["install"] and len(args) > 1 and not args[1].startswith("-"):
        from installers.install import main as install_main

        return install_main(["--bundle", args[1], *args[2:]])
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
