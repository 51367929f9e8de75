"""fireplan's planning side: visibility graphs, planners, search, players and the command line."""
