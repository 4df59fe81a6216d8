from facility_tui.cli import main

raise SystemExit(main())
