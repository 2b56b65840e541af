#!/bin/bash
# Databricks cluster init script: installs planguard on each node of a cluster.
#
# Copies the planguard jar for the cluster's Spark line (from DATABRICKS_RUNTIME_VERSION) out of
# PLANGUARD_SOURCE into /databricks/jars, which is on the driver's and the executors' classpath,
# and writes /databricks/driver/conf/00-planguard.conf: spark.sql.extensions as the driver's conf
# files already set it, with planguard.PlanGuardExtensions appended once. A second run changes
# nothing. Every path can be overridden from the environment, for tests. See docs/deploy.md.
set -euo pipefail

# Where you uploaded planguard's jars: a Unity Catalog volume or a workspace folder.
PLANGUARD_SOURCE="${PLANGUARD_SOURCE:-/Volumes/main/default/planguard}"
PLANGUARD_VERSION="${PLANGUARD_VERSION:-0.1.0}"

JARS_DIR="${PLANGUARD_JARS_DIR:-/databricks/jars}"
CONF_DIR="${PLANGUARD_CONF_DIR:-/databricks/driver/conf}"
CONF_NAME=00-planguard.conf
EXTENSION=planguard.PlanGuardExtensions

# The Spark line of a Databricks Runtime version such as 16.4 or 17.3.
spark_line() {
  case "$1" in
    15.* | 16.*) echo 3.5 ;;
    17.*) echo 4.0 ;;
    18.*) echo 4.1 ;;
    19.*) echo 4.2 ;;
    *) return 1 ;;
  esac
}

# planguard's jar for a Spark line: Spark 3.5 runs Scala 2.12, Spark 4 runs Scala 2.13.
jar_for_line() {
  local scala=2.13
  if [ "$1" = 3.5 ]; then scala=2.12; fi
  echo "planguard-spark${1}_${scala}-${PLANGUARD_VERSION}.jar"
}

# spark.sql.extensions as the driver's conf files set it (Databricks' own spark-branch.conf, files
# other init scripts wrote). The runtime applies them in reverse lexicographic order, so the value
# in the file that sorts first wins. Our own file is left out: a second run merges the same value.
existing_extensions() {
  local file value found=""
  while IFS= read -r file; do
    value="$(sed -n -E 's/^[[:space:]]*"?spark\.sql\.extensions"?[[:space:]]*[=:][[:space:]]*"?([^"]*)"?[[:space:]]*$/\1/p' "$file" | tail -n 1)"
    if [ -n "$value" ]; then found="$value"; fi
  done < <(find "$CONF_DIR" -maxdepth 1 -name '*.conf' ! -name "$CONF_NAME" | LC_ALL=C sort -r)
  echo "$found"
}

# A comma-separated list with planguard's extension appended: order kept, blanks and repeats out.
with_planguard() {
  local merged="" item
  local -a items
  IFS=, read -ra items <<< "$1,$EXTENSION"
  for item in "${items[@]}"; do
    item="${item#"${item%%[![:space:]]*}"}"
    item="${item%"${item##*[![:space:]]}"}"
    if [ -z "$item" ]; then continue; fi
    case ",$merged," in *",$item,"*) continue ;; esac
    merged="${merged:+$merged,}$item"
  done
  echo "$merged"
}

# Copies a file into place unless the same bytes are there already; never half-written.
install_file() {
  if ! cmp -s "$1" "$2"; then
    cp "$1" "$2.planguard-tmp"
    mv -f "$2.planguard-tmp" "$2"
  fi
}

runtime="${DATABRICKS_RUNTIME_VERSION:-}"
if ! line="$(spark_line "$runtime")"; then
  echo "planguard: no planguard jar for Databricks Runtime '$runtime'" \
    "(DATABRICKS_RUNTIME_VERSION); supported: 15.4 LTS to 19" >&2
  exit 1
fi
jar="$(jar_for_line "$line")"
if [ ! -f "$PLANGUARD_SOURCE/$jar" ]; then
  echo "planguard: $PLANGUARD_SOURCE/$jar not found: upload the jar for Spark $line there" >&2
  exit 1
fi
mkdir -p "$JARS_DIR" "$CONF_DIR"
install_file "$PLANGUARD_SOURCE/$jar" "$JARS_DIR/$jar"
conf="$(mktemp)"
trap 'rm -f "$conf"' EXIT
cat > "$conf" <<CONF
[driver] {
  "spark.sql.extensions" = "$(with_planguard "$(existing_extensions)")"
}
CONF
install_file "$conf" "$CONF_DIR/$CONF_NAME"
echo "planguard: $jar (Spark $line) in $JARS_DIR, extensions in $CONF_DIR/$CONF_NAME"
