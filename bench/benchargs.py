"""The results scripts' command line: an optional program path first, then
`--name value` pairs. options(script, known) returns (program, {name:
value}) for the names in known (without their dashes); anything else, or
a name without a value, exits with a message naming the script."""
import sys


def options(script, known, argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    prog = "./placeto"
    if args and not args[0].startswith("--"):
        prog = args.pop(0)
    got = {}
    while args:
        k = args.pop(0)
        if not k.startswith("--") or k[2:] not in known:
            sys.exit("%s: unknown option %s (known: %s)" % (script, k, ", ".join("--" + n for n in known)))
        if not args:
            sys.exit("%s: %s needs a value" % (script, k))
        got[k[2:]] = args.pop(0)
    return prog, got
