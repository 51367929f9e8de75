"""``fireplan demo``: placeholder until written."""


def register(subparsers):
    parser = subparsers.add_parser("demo", help="run the AI on the default scenario")
    parser.set_defaults(run=lambda args: 0)
