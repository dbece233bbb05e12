"""`python -m graphforge`: the CLI.

`python -m` puts the current directory first on sys.path (unless -P / -I / PYTHONSAFEPATH), and the
current directory may be a crawled folder (`cd folder && python -m graphforge load workspace .`): it is
taken off before anything else is imported. What Python imported before this line (its start-up modules,
`runpy`) cannot be helped from here: the `graphforge` command, or `python -P -m graphforge`, never puts
the current directory on the path at all.
"""

import os
import sys

if not sys.flags.safe_path and sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from graphforge.cli.main import main  # noqa: E402  (after the import path is made safe)

raise SystemExit(main())
