#!/usr/bin/env bash
# Resolves the runtime closure of the Apache Kafka broker (KRaft) from Maven Central into a cache folder
# outside the repo, and prints that folder. Idempotent: a complete cache is reused without touching Maven.
# Usage: infra/kafka/fetch-jars.sh            → ~/.cache/wren/kafka-3.9.0/libs
#        KAFKA_VERSION=3.9.1 infra/kafka/fetch-jars.sh
set -euo pipefail

version="${KAFKA_VERSION:-3.9.0}"
cache="${WREN_KAFKA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wren/kafka-$version}"
libs="$cache/libs"

if [[ -f "$cache/.complete" ]]; then
  echo "$libs"
  exit 0
fi

command -v mvn >/dev/null || { echo "fetch-jars: mvn not found" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>wren.local</groupId>
  <artifactId>kafka-broker-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$version</version></dependency>
    <dependency><groupId>ch.qos.reload4j</groupId><artifactId>reload4j</artifactId><version>1.2.25</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>1.7.36</version></dependency>
  </dependencies>
</project>
POM
rm -rf "$libs"
mkdir -p "$libs"
mvn -q -B -f "$work/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$libs" >&2
ls "$libs"/kafka_2.13-"$version".jar >/dev/null
touch "$cache/.complete"
echo "$libs"
