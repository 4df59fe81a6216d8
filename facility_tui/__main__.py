from facility_tui.launch import main

raise SystemExit(main())
