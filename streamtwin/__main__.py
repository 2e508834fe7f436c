import sys

from streamtwin.cli.main import main

sys.exit(main())
