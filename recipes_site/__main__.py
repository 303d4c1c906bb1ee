from recipes_site.cli import main

raise SystemExit(main())
