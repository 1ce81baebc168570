from graphweld.frontends.cli import main

main()
