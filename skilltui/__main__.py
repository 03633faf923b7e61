from skilltui.cli import main

raise SystemExit(main())
