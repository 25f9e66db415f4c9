"""``ktype app``: a local web app for data stewards (``pip install ktype[app]``).

Load a table, set the columns' roles, choose k, ℓ, t and an algorithm, run with progress and
a Cancel that stops the work, inspect and compare results, download the release, its report
and a config that reproduces the run on the command line. See ``docs/app.md``.

The logic lives in :mod:`ktype.app._state` (no browser needed); the page in
:mod:`ktype.app._ui` (NiceGUI, imported only by :func:`main`).
"""
