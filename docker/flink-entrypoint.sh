#!/usr/bin/env bash
# Starts a Flink process on the repository's configuration. The repository's flink-conf/ is
# mounted read-only at /opt/unread/flink-conf and copied into Flink's own conf/ directory, where
# the official entrypoint then adds what depends on the container (jobmanager.rpc.address from
# JOB_MANAGER_RPC_ADDRESS, blob and query ports). So the files in the repository are never
# rewritten, and every setting in them reaches the cluster.
set -euo pipefail
cp /opt/unread/flink-conf/config.yaml /opt/unread/flink-conf/log4j-console.properties \
  "${FLINK_HOME}/conf/"
exec /docker-entrypoint.sh "$@"
