"""``fireplan odds``: placeholder until written."""


def register(subparsers):
    parser = subparsers.add_parser("odds", help="exact odds")
    parser.set_defaults(run=lambda args: 0)
