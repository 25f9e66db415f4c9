"""``python -m ktype``: the ``ktype`` command line."""

from ktype.cli import main

if __name__ == "__main__":
    main()
