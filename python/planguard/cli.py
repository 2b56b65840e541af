"""The `planguard` command."""
import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="planguard", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", help="run queries in a local Spark session and catch a broken rule")
    commands.add_parser("jar", help="print the path of planguard's jar (for spark-submit --jars)")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from planguard import demo
        return demo.run()
    if args.command == "jar":
        from planguard import jar_path
        print(jar_path())
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
