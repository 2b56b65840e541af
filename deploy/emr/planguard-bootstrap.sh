#!/bin/bash
# Amazon EMR bootstrap action: puts planguard's jar on each node, as
# /usr/lib/planguard/planguard.jar, the path configurations.json gives spark.jars.
#
# Arguments: the S3 folder holding planguard's jars, and the cluster's release label (emr-7.5.0),
# which picks the jar for its Spark line. A second run changes nothing. The folder can be
# overridden from the environment (PLANGUARD_JAR_DIR), for tests. See docs/deploy.md.
set -euo pipefail

SOURCE="${1:?usage: planguard-bootstrap.sh s3://bucket/folder emr-release-label}"
RELEASE="${2:?usage: planguard-bootstrap.sh s3://bucket/folder emr-release-label}"
PLANGUARD_VERSION="${PLANGUARD_VERSION:-0.1.0}"
JAR_DIR="${PLANGUARD_JAR_DIR:-/usr/lib/planguard}"

# The Spark line of an EMR release label.
spark_line() {
  case "$1" in
    emr-7.*) echo 3.5 ;;
    emr-8.*) echo 4.1 ;;
    *) return 1 ;;
  esac
}

# planguard's jar for a Spark line: Spark 3.5 runs Scala 2.12, Spark 4 runs Scala 2.13.
jar_for_line() {
  local scala=2.13
  if [ "$1" = 3.5 ]; then scala=2.12; fi
  echo "planguard-spark${1}_${scala}-${PLANGUARD_VERSION}.jar"
}

# EMR runs bootstrap actions as the hadoop user, who needs sudo to write under /usr/lib.
as_owner() {
  if [ -w "$(dirname "$JAR_DIR")" ]; then "$@"; else sudo "$@"; fi
}

if ! line="$(spark_line "$RELEASE")"; then
  echo "planguard: no planguard jar for EMR release '$RELEASE'; supported: emr-7.x, emr-8.x" >&2
  exit 1
fi
jar="$(jar_for_line "$line")"
download="$(mktemp)"
trap 'rm -f "$download"' EXIT
aws s3 cp --only-show-errors "$SOURCE/$jar" "$download"
as_owner mkdir -p "$JAR_DIR"
if ! cmp -s "$download" "$JAR_DIR/$jar"; then
  as_owner install -m 0644 "$download" "$JAR_DIR/$jar"
fi
if [ "$(readlink "$JAR_DIR/planguard.jar")" != "$jar" ]; then
  as_owner ln -sfn "$jar" "$JAR_DIR/planguard.jar"
fi
echo "planguard: $jar (Spark $line) in $JAR_DIR, linked as planguard.jar"
