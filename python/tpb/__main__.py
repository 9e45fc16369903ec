"""``python -m tpb``: the ``tpb`` command."""

import sys

from ._cli import main

sys.exit(main())
