from graphweld.cli import main

main()
