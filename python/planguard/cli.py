"""The `planguard` command."""
import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="planguard", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", help="run queries in a local Spark session and catch a broken rule")
    jar = commands.add_parser("jar", help="print the path of planguard's jar (for spark-submit "
                                          "--jars)")
    jar.add_argument("--tools", action="store_true",
                     help="print the tools' jar instead (planguard.stages and explain in a job)")
    jar.add_argument("--spark", metavar="VERSION",
                     help="the Spark line or version the jar is for (3.5, 4.1, 4.1.4); by "
                          "default the installed pyspark's")
    from planguard._check import commands as _sql_commands
    _sql_commands.add_arguments(commands.add_parser(
        "explain", help="print a SQL statement's stages (text, dot, svg or html), planned and "
                        "not run"), check=False)
    _sql_commands.add_arguments(commands.add_parser(
        "check", help="plan SQL statements without running them and report every invariant: "
                      "exit 0 clean, 1 violations, 2 usage or SQL errors"), check=True)
    args = parser.parse_args(argv)
    if args.command == "demo":
        from planguard import demo
        return demo.run()
    if args.command == "jar":
        from planguard._configuration_error import ConfigurationError
        from planguard._jar import jar_path, tools_jar_path
        try:
            print(tools_jar_path(args.spark) if args.tools else jar_path(args.spark))
        except ConfigurationError as e:
            print(f"planguard jar: {e}", file=sys.stderr)
            return 2
        return 0
    try:
        if args.command == "explain":
            return _sql_commands.explain(args)
        return _sql_commands.check(args)
    except _sql_commands.UsageError as e:
        print(f"planguard {args.command}: {e}", file=sys.stderr)
        return _sql_commands.ERROR


if __name__ == "__main__":
    sys.exit(main())
