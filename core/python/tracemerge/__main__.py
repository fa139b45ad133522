"""python -m tracemerge PATH… [options]: the CLI, on the core this package carries."""
import sys

from . import _native


def main(argv=None):
    answer = _native.run(sys.argv[1:] if argv is None else argv)
    sys.stdout.write(answer.get("out", ""))
    sys.stderr.write(answer.get("err", ""))
    return answer["exit"]


if __name__ == "__main__":
    sys.exit(main())
