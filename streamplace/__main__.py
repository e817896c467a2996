from streamplace.cli.app import main

main()
