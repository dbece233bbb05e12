from graphforge.cli.main import main

raise SystemExit(main())
