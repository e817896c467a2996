from streamplace.cli.entry import main

main()
